import BoxAPI
import Foundation
import WriteBack

/// Files with local content: being written, or written and not yet on Box. A value type guarded by
/// the `FileSystem`'s mutex; no I/O here.
///
/// Each has a stable local number (handles keep it), the item the kernel is shown (Box's item with
/// the local size and times, or a made-up one for a file Box does not have yet), and its journal
/// entry while content waits for the uploader. A local file shadows Box's listing: its folder shows
/// it under its name whatever Box says, so what you wrote is what you see.
struct LocalFiles {
    struct File: Sendable {
        /// Where a local file is in its life. Its changes are the named transitions below; the counts of
        /// `handles` and `writers` (open for writing) go beside it.
        ///
        /// ```
        ///   local copy, or create ─▶ clean ──journaled(e)──▶ waiting(e) ──uploadEnded(e)──▶ clean ─▶ …
        ///          (nothing to upload)  │      (content for entry e: waiting for the uploader, or on the wire)
        ///                               │                         │
        ///                               └──────── unlink ─────────┴──▶ unlinked(inode)   (its entry dropped;
        ///                                                                 readable through open handles only)
        /// ```
        /// A file is removed from `LocalFiles` once nothing holds it: no handle, no writer, and clean or unlinked
        /// (`FileSystem.dropIfIdle`). An unlinked file is never journaled again, and a waiting one is never unlinked
        /// without its entry being dropped: such a combination cannot be written down.
        enum Phase: Equatable, Sendable {
            /// Nothing to upload: a copy of a Box version, or content Box has now.
            case clean
            /// Content for the journal entry `entryID`: waiting for its upload, or on the wire.
            case waiting(entryID: Int64)
            /// Deleted, or replaced by a rename: invisible, kept only while handles are open. `inode` is the one it
            /// had then: `fstat` of its open descriptors finds it by that.
            case unlinked(inode: UInt64?)
        }

        let number: UInt64
        let staging: StagingFile
        /// What the kernel sees: size and times are the local ones.
        var item: BoxItem
        /// The Box version the local content started from (nil for a file new to Box).
        var base: BoxItem?
        private(set) var phase: Phase
        var writers = 0
        var handles = 0
        /// Renamed over another file while it was new to Box: a new file its earlier upload may
        /// still create is unwanted (its content goes to the other file).
        var supersedesNewUpload = false

        init(number: UInt64, staging: StagingFile, item: BoxItem, base: BoxItem?, entryID: Int64? = nil,
             writers: Int = 0, handles: Int = 0) {
            self.number = number
            self.staging = staging
            self.item = item
            self.base = base
            self.phase = entryID.map { .waiting(entryID: $0) } ?? .clean
            self.writers = writers
            self.handles = handles
        }

        /// The journal entry its content waits in, or nil.
        var entryID: Int64? { if case .waiting(let entryID) = phase { entryID } else { nil } }
        var unlinked: Bool { if case .unlinked = phase { true } else { false } }
        /// The inode it had when it was unlinked (nil when it is not unlinked, or had none).
        var unlinkedInode: UInt64? { if case .unlinked(let inode) = phase { inode } else { nil } }

        /// Its content was recorded in the journal as `entryID`; false (and nothing changes) when it was unlinked
        /// meanwhile: the entry is then the caller's to drop.
        mutating func journaled(_ entryID: Int64) -> Bool {
            guard !unlinked else { return false }
            phase = .waiting(entryID: entryID)
            return true
        }

        /// The entry `entryID` is done with (its upload landed, or the uploader no longer has it): clean, unless the
        /// file has another entry or was unlinked since.
        mutating func uploadEnded(_ entryID: Int64) {
            if self.entryID == entryID { phase = .clean }
        }

        /// Deleted or replaced at `inode`: answers the entry whose upload is dropped with it. Unlinked again, it keeps
        /// the inode it had the first time.
        mutating func unlink(inode: UInt64?) -> Int64? {
            let dropped = entryID
            phase = .unlinked(inode: unlinkedInode ?? inode)
            return dropped
        }

        /// Where the uploader sends it.
        var target: UploadTarget {
            guard let base else { return .newFile(parentID: item.parentID ?? "", name: item.name) }
            return .newVersion(
                fileID: base.id, parentID: item.parentID ?? "", name: item.name, baseETag: base.etag, baseSHA1: base.sha1)
        }

        var isNewToBox: Bool { base == nil }

        /// From now on this local content belongs to Box file `box` (its next version): takes its
        /// identity (id, etag, SHA-1, version), keeping the local name, size and times.
        mutating func rebase(on box: BoxItem) {
            base = box
            item.id = box.id
            item.etag = box.etag
            item.sha1 = box.sha1
            item.fileVersionID = box.fileVersionID
        }
    }

    private(set) var files: [UInt64: File] = [:]
    private var byItemID: [String: UInt64] = [:]
    private var byEntryID: [Int64: UInt64] = [:]
    /// Every file (unlinked ones too) by the folder its item names, then by name: what a listing overlays and
    /// what a lookup finds, without a scan of every local file (a `cp -r` of thousands makes as many).
    private var byFolder: [String: [[UInt8]: Set<UInt64>]] = [:]
    /// How many files (unlinked ones too) of each folder have a name of each `BoxName.foldedHash`.
    private var foldedByFolder: [String: [Int: Int]] = [:]
    /// Bytes written locally that Box does not have yet (for the quota check), kept as files change rather
    /// than summed at each write.
    private(set) var pendingBytes: Int64 = 0
    private var nextNumber: UInt64 = 1
    /// Box files of the mount's own making that it is removing (`FileSystem+Leftovers`): never shown, though
    /// a listing fetched before Box confirms the removal still has them.
    var leftovers: Set<String> = []
    /// Places the uploader sent new files to without the answer applied yet (nil on a read-only mount): a Box file
    /// there with content sent is never shown (`UnansweredUploads`).
    var unanswered: UnansweredUploads?

    /// The id a file Box does not have yet shows in its item (never numeric, so never a Box id); read back only by
    /// `NodeID(itemID:)`, through `localNumber`.
    static func localID(_ number: UInt64) -> String { "local-\(number)" }

    /// The number of the local file `id` was made up for, or nil for a Box id.
    static func localNumber(_ id: String) -> UInt64? {
        id.hasPrefix("local-") ? UInt64(id.dropFirst(6)) : nil
    }

    mutating func reserveNumber() -> UInt64 {
        defer { nextNumber += 1 }
        return nextNumber
    }

    mutating func add(_ file: File) {
        files[file.number] = file
        byItemID[file.item.id] = file.number
        if let entryID = file.entryID { byEntryID[entryID] = file.number }
        index(file)
    }

    /// What a file adds to `pendingBytes`: its growth over the Box version while it has content to upload.
    private static func pending(_ file: File) -> Int64 {
        file.entryID == nil ? 0 : max(0, file.item.size - (file.base?.size ?? 0))
    }

    private mutating func index(_ file: File) {
        let folder = file.item.parentID ?? ""
        byFolder[folder, default: [:]][BoxName.key(file.item.name), default: []].insert(file.number)
        foldedByFolder[folder, default: [:]][BoxName.foldedHash(file.item.name), default: 0] += 1
        pendingBytes += Self.pending(file)
    }

    private mutating func unindex(_ file: File) {
        let folder = file.item.parentID ?? "", name = BoxName.key(file.item.name)
        byFolder[folder]?[name]?.remove(file.number)
        if byFolder[folder]?[name]?.isEmpty == true { byFolder[folder]?[name] = nil }
        if byFolder[folder]?.isEmpty == true { byFolder[folder] = nil }
        let folded = BoxName.foldedHash(file.item.name)
        foldedByFolder[folder]?[folded]? -= 1
        if foldedByFolder[folder]?[folded] == 0 { foldedByFolder[folder]?[folded] = nil }
        if foldedByFolder[folder]?.isEmpty == true { foldedByFolder[folder] = nil }
        pendingBytes -= Self.pending(file)
    }

    /// The files (unlinked ones too) whose items name folder `folderID`.
    private func files(inFolder folderID: String) -> [File] {
        (byFolder[folderID] ?? [:]).values.flatMap { $0.compactMap { files[$0] } }
    }

    /// Whether any file (unlinked ones too) names folder `folderID`.
    func holdsFiles(inFolder folderID: String) -> Bool { byFolder[folderID] != nil }

    /// The files (unlinked ones too) named `name` in folder `folderID`.
    private func files(named name: String, inFolder folderID: String) -> [File] {
        (byFolder[folderID]?[BoxName.key(name)] ?? []).compactMap { files[$0] }
    }

    func file(_ number: UInt64) -> File? { files[number] }

    func file(itemID: String) -> File? { byItemID[itemID].flatMap { files[$0] } }

    func file(entryID: Int64) -> File? { byEntryID[entryID].flatMap { files[$0] } }

    /// The unlinked file that had `inode` (few files are unlinked while open: a scan is fine).
    func unlinkedFile(inode: UInt64) -> File? {
        files.values.first { $0.unlinked && $0.unlinkedInode == inode }
    }

    /// Changes a file and keeps the indexes right (its item id or entry may change).
    @discardableResult
    mutating func update<T>(_ number: UInt64, _ body: (inout File) -> T) -> T? {
        guard var file = files[number] else { return nil }
        let oldItemID = file.item.id, oldEntry = file.entryID, wasUnlinked = file.unlinked
        let old = file
        let result = body(&file)
        if old.item.name != file.item.name || old.item.parentID != file.item.parentID {
            unindex(old)
            index(file)
        } else {
            // Most changes are writes (size, times): only the pending-bytes total moves, not the name indexes.
            pendingBytes += Self.pending(file) - Self.pending(old)
        }
        if oldItemID != file.item.id || wasUnlinked != file.unlinked {
            if byItemID[oldItemID] == number { byItemID[oldItemID] = nil }
            if !file.unlinked { byItemID[file.item.id] = number }
        }
        if oldEntry != file.entryID {
            if let oldEntry, byEntryID[oldEntry] == number { byEntryID[oldEntry] = nil }
            if let entryID = file.entryID { byEntryID[entryID] = number }
        }
        files[number] = file
        return result
    }

    /// The file of `entryID` goes up as a new file from now on (its Box file changed or is gone): it has no base and
    /// takes a made-up id, after `andThen` (a conflicted copy's new name). Answers its old id and its item now.
    mutating func makeNewToBox(
        entryID: Int64, andThen change: (inout File) -> Void = { _ in }
    ) -> (old: String, now: BoxItem)? {
        guard let number = byEntryID[entryID] else { return nil }
        return update(number) { file in
            let old = file.item.id
            file.base = nil
            file.item.id = Self.localID(file.number)
            file.item.etag = nil
            file.item.sha1 = nil
            file.item.fileVersionID = nil
            change(&file)
            return (old, file.item)
        }
    }

    /// The uploader no longer has `entryID` (its upload finished meanwhile): the file forgets it,
    /// unless it already has a newer entry, so its next change is journaled afresh.
    mutating func forgetEntry(_ entryID: Int64, of number: UInt64) {
        update(number) { $0.uploadEnded(entryID) }
    }

    @discardableResult
    mutating func remove(_ number: UInt64) -> File? {
        guard let file = files.removeValue(forKey: number) else { return nil }
        unindex(file)
        if byItemID[file.item.id] == number { byItemID[file.item.id] = nil }
        if let entryID = file.entryID, byEntryID[entryID] == number { byEntryID[entryID] = nil }
        return file
    }

    /// A folder's Box listing with local files laid over it: a local file replaces the Box item of the
    /// same id or name, and files new to Box are added.
    func overlay(_ items: [BoxItem], folderID: String) -> [BoxItem] {
        let local = files(inFolder: folderID).filter { !$0.unlinked }.map(\.item)
        let unanswered = unanswered.flatMap { $0.isEmpty(inFolder: folderID) ? nil : $0 }
        guard !local.isEmpty || unanswered != nil
            || items.contains(where: { byItemID[$0.id] != nil || leftovers.contains($0.id) })
        else { return items }
        let names = Set(local.map { BoxName.key($0.name) }), ids = Set(local.map(\.id))
        // A Box item whose local file moved elsewhere is hidden too (it is shown where it went).
        let kept = items.filter {
            !names.contains(BoxName.key($0.name)) && !ids.contains($0.id)
                && hiding($0, folderID: folderID, unanswered: unanswered) == nil
        }
        return kept + local
    }

    /// Whether a local file in `folderID` may have a name Box counts as the same as `name` (false: surely none).
    func mayHoldOnBox(_ name: String, inFolder folderID: String) -> Bool {
        foldedByFolder[folderID]?[BoxName.foldedHash(name)] != nil
    }

    /// The local file shown as `name` in folder `folderID`, if any.
    func file(named name: String, inFolder folderID: String) -> File? {
        files(named: name, inFolder: folderID).first { !$0.unlinked }
    }

    /// What `overlay(_:folderID:)` of the listing would show under `name`, without building it.
    func overlaid(named name: String, in listing: InodeTable.Listing, folderID: String) -> BoxItem? {
        if let local = file(named: name, inFolder: folderID) { return local.item }
        guard let position = listing.position(of: name) else { return nil }
        let item = listing.items[position]
        return hiding(item, folderID: folderID, unanswered: unanswered) == nil ? item : nil
    }

    /// Why a Box item of a folder's listing is not shown, whatever its name.
    private enum Hiding {
        /// Its local file is shown (elsewhere if moved, or under another name).
        case localFile(UInt64)
        /// A file of the mount's own making being removed.
        case leftover
        /// An upload whose answer is not applied yet may have made it.
        case unanswered
    }

    /// What hides `item`, or nil when it is shown (unless a local file takes its name). `unanswered` is the
    /// mount's, or nil when the caller knows no place in the folder is unanswered.
    private func hiding(_ item: BoxItem, folderID: String, unanswered: UnansweredUploads?) -> Hiding? {
        if let number = byItemID[item.id] { return .localFile(number) }
        if leftovers.contains(item.id) { return .leftover }
        if unanswered?.hides(name: item.name, sha1: item.sha1, inFolder: folderID) == true { return .unanswered }
        return nil
    }

    /// Why Box's item named `name` in the listing is not shown (for the `ENOENT` a lookup answers), or nil when
    /// the listing has no such item.
    func whyHidden(named name: String, in listing: InodeTable.Listing, folderID: String) -> String? {
        guard let position = listing.position(of: name) else { return nil }
        let item = listing.items[position]
        switch hiding(item, folderID: folderID, unanswered: unanswered) {
        case .localFile(let number):
            let file = files[number]
            return "Box's \(item.id) is local file \(number), \(file?.unlinked == true ? "unlinked" : "named \"\(file?.item.name ?? "")\"")"
        case .leftover: return "Box's \(item.id) is a leftover being removed"
        case .unanswered: return "Box's \(item.id) may be what an unanswered upload made"
        case nil: return nil
        }
    }

    /// Whether a visible local file new to Box (not uploaded yet, or its upload's answer not applied yet) is
    /// named `name` in `folderID`.
    func hasNewFile(named name: String, in folderID: String) -> Bool {
        files(named: name, inFolder: folderID).contains { !$0.unlinked && $0.isNewToBox }
    }
}

