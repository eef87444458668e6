import BoxAPI
import Foundation
import WriteBack

extension FileSystem {
    /// Creates an empty file `name` in folder `parent` and opens it for writing. It exists only
    /// here (and in the journal) until its first upload, which follows the last close.
    public func create(parent: UInt64, name: String) async throws(FSError) -> (attributes: FileAttributes, handle: UInt64) {
        try await refuseControlChange(parent: parent, name: name)
        let writeBack = try requireWriteBack(name)
        try validateName(name)
        let folder = try folderItem(parent)
        try await checkNameFree(name, in: folder, inode: parent)
        let now = Date()
        let number = locals.withLock { $0.reserveNumber() }
        let item = BoxItem(
            id: LocalFiles.localID(number), kind: .file, name: name, size: 0, createdAt: now, modifiedAt: now,
            contentCreatedAt: now, contentModifiedAt: now, parentID: folder.id)
        let staging = try StagingFile(path: writeBack.newStagingPath(), create: true)
        do {
            let entry = try await withRoom(for: 0) {
                try await writeBack.journal.recordGrouped(
                    stagingPath: staging.path, target: .newFile(parentID: folder.id, name: name), contentModifiedAt: now,
                    folderPath: mountPath(ofFolder: folder.id))
            }
            try await writeBack.uploader.fileOpened(entry.id)
            locals.withLock { files in
                files.add(LocalFiles.File(
                    number: number, staging: staging, item: item, base: nil, entryID: entry.id, writers: 1, handles: 1))
            }
        } catch {
            staging.remove()
            throw FSError(error, context: "creating \(name)")
        }
        let (node, nodeCount) = tree.withLock { ($0.remember(item, parentInode: parent), $0.nodes.count) }
        keepNodesWithinBudget(nodeCount: nodeCount)
        let handle = handles.withLock { $0.open(.local(number: number, writable: true)) }
        entriesChanged(in: folder.id)
        return (attributes(of: item, inode: node.inode), handle)
    }

    /// EEXIST if `name`, or a name Box counts as the same (Box ignores case), is taken in `folder`.
    func checkNameFree(_ name: String, in folder: BoxItem, inode: UInt64, except id: String? = nil) async throws(FSError) {
        // A name no cached entry and no local file can clash with is free, without building the folder's view
        // (`cp -r` of thousands of files into one folder asks this for each).
        // The listing and the local files in one critical section (see `CoreState.shownListing`).
        let ttl = listingTTL
        let surelyFree = state.withLock { state in
            state.tree.freshListing(folderID: folder.id, ttl: ttl, now: .now).map { cached in
                !cached.mayHoldOnBox(name) && !state.locals.mayHoldOnBox(name, inFolder: folder.id)
            } ?? false
        }
        if surelyFree { return }
        let items = try await listing(of: folder, inode: inode)
        if let taken = items.first(where: { BoxName.sameOnBox($0.name, name) && $0.id != id }) {
            throw BoxName.same(taken.name, name)
                ? .exists(name) : FSError(.exists, "\(name): Box ignores case and \"\(taken.name)\" exists")
        }
    }

    /// Changes size, modification and/or access time (`truncate`, `ftruncate`, `utimens`). Mode and
    /// owner changes are accepted and ignored: Box has neither, and `cp -a` / `rsync -a` must not fail.
    /// The access time is kept here only (`LocalTimes`): Box has none.
    public func setAttributes(
        _ inode: UInt64, handle: UInt64?, size: Int64?, modified: Date?, accessed: Date? = nil
    ) async throws(FSError) -> FileAttributes {
        try await refuseControlChange(parent: inode)
        guard let node = tree.withLock({ $0.node(inode) }) else { throw .notFound("inode \(inode)") }
        if let accessed {
            localTimes.withLock { $0.accessed[inode] = accessed }
        } else if modified != nil {
            // Without a time of its own the access time follows the mtime: keep it where it was.
            let current = try attributes(inode).accessed
            localTimes.withLock { times in if times.accessed[inode] == nil { times.accessed[inode] = current } }
        }
        guard node.item.kind == .file, size != nil || modified != nil else { return try attributes(inode) }
        _ = try requireWriteBack(node.item.name)
        // A detached node stands for no Box file: only a local copy open through `handle` can change.
        if node.id.isDetached, !holdsLocalFile(handle) { throw Self.detachedFromItem(node) }
        let item = visible(node)
        if let size {
            guard size >= 0 else { throw FSError(.invalidArgument, "negative size") }
            try await changeLocalFile(of: item, handle: handle, empty: size == 0) { number throws(FSError) in
                try await checkSpace(number, growingTo: size)
                try await modify(number, modified: modified ?? Date(), explicitTime: modified != nil) { staging throws(FSError) in
                    try staging.truncate(to: size)
                    return .exactly(size)
                }
            }
        } else if let modified, !sameSecond(modified, item.contentModifiedAt) || !node.id.isDetached && hasEntry(item) {
            // Box keeps a file's mtime only as `content_modified_at` of a version: a new time on a
            // file with no pending upload costs a new version with the same content.
            try await changeLocalFile(of: item, handle: handle, empty: item.size == 0) { number throws(FSError) in
                try await modify(number, modified: modified, explicitTime: true) { _ throws(FSError) in .unchanged }
            }
        }
        return try attributes(inode)
    }

    /// Runs `change` on the local file of `item`: the handle's own, or (a change by path) its local copy, held like
    /// an open handle until `change` is done. Unheld, the copy of a file whose upload landed just then was dropped
    /// before the change reached it (model seed 36075: a truncate by path answered EBADF). A copy left unused by a
    /// failed change (maybe emptied in advance) is dropped, so it does not shadow Box's content.
    private func changeLocalFile(
        of item: BoxItem, handle: UInt64?, empty: Bool, _ change: (UInt64) async throws(FSError) -> Void
    ) async throws(FSError) {
        if let handle, case .local(let number, _)? = handles.withLock({ $0.handle(handle) }) {
            return try await change(number)
        }
        let (number, _) = try await heldLocalCopy(of: item, empty: empty, writable: false)
        defer { unpin(number) }
        try await change(number)
    }

    private func holdsLocalFile(_ handle: UInt64?) -> Bool {
        guard let handle, case .local? = handles.withLock({ $0.handle(handle) }) else { return false }
        return true
    }

    private func hasEntry(_ item: BoxItem) -> Bool {
        locals.withLock { $0.file(itemID: item.id)?.entryID != nil }
    }

    private func sameSecond(_ date: Date, _ other: Date?) -> Bool {
        guard let other else { return false }
        return Int64(date.timeIntervalSince1970.rounded(.down)) == Int64(other.timeIntervalSince1970.rounded(.down))
    }
}
