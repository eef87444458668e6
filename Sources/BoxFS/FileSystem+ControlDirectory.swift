import BoxAPI
import Foundation
import Transfers

/// The control directory's nodes as the kernel sees them (see `ControlDirectory`): lookups, attributes,
/// listings and reads. Everything in it is read-only: every change answers EROFS.
extension FileSystem {
    var controlName: String { controlState.name }

    /// Whether `name` in `parent` is the control directory's own name at the mount root.
    func isControlName(_ name: String, parent: UInt64) -> Bool {
        parent == Self.rootInode && name == controlName
    }

    /// The control directory itself, looked up at the root because no Box item there has its name.
    func rememberControlDirectory() -> FileAttributes {
        rememberControl(.top)
    }

    /// A Box item at the root has the control directory's name: it wins, and the log says once how to reach
    /// the control directory.
    func reportShadowedControlDirectory() {
        let first = controlState.shadowReported.withLock { reported in
            defer { reported = true }
            return !reported
        }
        guard first else { return }
        logger.warning("""
            a Box item named \(controlName) is at the root of the mount and is shown: the control directory \
            (versions, trash, search) is reachable under another name with -o control_dir=NAME
            """)
    }

    /// A lookup in the control directory answered without I/O, or nil when it needs Box (or a fetched view).
    func controlLookupNow(parent: UInt64, name: String) throws(FSError) -> FileAttributes? {
        let node = try controlNode(parent)
        switch node.kind {
        case .top: return try rememberControl(topEntry(name))
        case .searchRoot: return rememberControl(.viewFolder(.search(name), path: []))
        case .version, .viewFile: throw .notDirectory(name)
        default: return nil
        }
    }

    /// A lookup in the control directory; views are fetched from Box on first use.
    func controlLookup(parent: UInt64, name: String) async throws(FSError) -> FileAttributes {
        if let now = try controlLookupNow(parent: parent, name: name) { return now }
        let node = try controlNode(parent)
        if case .versionsFolder(let folder) = node.kind {
            // Through the folder's name index, as lookups in the mount go: `ls -l` of a large folder asks per name.
            guard let item = try await mirrored(name, in: folder) else { throw .notFound(name) }
            return rememberControl(item.kind == .folder ? .versionsFolder(item) : .versionsOfFile(item))
        }
        guard let kind = try await controlEntries(of: node.kind).first(where: { $0.name == name })?.kind else {
            throw .notFound(name)
        }
        return rememberControl(kind)
    }

    /// The file or folder `name` of `folder` that `versions/` shows (not a web link, not a file only here).
    private func mirrored(_ name: String, in folder: BoxItem) async throws(FSError) -> BoxItem? {
        // Listed (with the whole overlay built) only when no fresh listing is cached: a lookup per name must not
        // cost a pass over the folder.
        let ttl = listingTTL
        var listed: [BoxItem]?
        if tree.withLock({ $0.freshListing(folderID: folder.id, ttl: ttl, now: .now) }) == nil {
            listed = try await listing(of: folder, inode: 0)
        }
        // The listing may have been evicted since (`InodeTable+Eviction`): then what was listed answers.
        let item = tree.withLock { tree in tree.listings[folder.id] }.flatMap { listing in
            locals.withLock { $0.overlaid(named: name, in: listing, folderID: folder.id) }
        } ?? listed?.first { BoxName.same($0.name, name) }
        guard let item, item.kind != .webLink, case .box = NodeID(item) else { return nil }
        return item
    }

    private func topEntry(_ name: String) throws(FSError) -> ControlNode.Kind {
        switch name {
        case ControlDirectory.versionsName: return .versionsFolder(mountedFolder)
        case ControlDirectory.trashName: return .trashRoot
        case ControlDirectory.searchName: return .searchRoot
        default: throw .notFound(name)
        }
    }

    /// What a control folder holds. `search/` holds nothing until a query is looked up in it.
    func controlEntries(of kind: ControlNode.Kind) async throws(FSError) -> [(name: String, kind: ControlNode.Kind)] {
        switch kind {
        case .top:
            return [(ControlDirectory.versionsName, .versionsFolder(mountedFolder)),
                    (ControlDirectory.trashName, .trashRoot), (ControlDirectory.searchName, .searchRoot)]
        case .searchRoot:
            return []
        case .versionsFolder(let folder):
            let items = try await listing(of: folder, inode: 0)
            return items.compactMap { item in
                // A file not on Box yet has no versions; web links are never shown.
                guard case .box = NodeID(item) else { return nil }
                switch item.kind {
                case .folder: return (item.name, .versionsFolder(item))
                case .file: return (item.name, .versionsOfFile(item))
                case .webLink: return nil
                }
            }
        case .versionsOfFile(let file):
            return try await namedVersions(of: file).entries.map { ($0.name, .version(file: file, $0.version)) }
        case .trashRoot:
            return try await viewEntries(.trash, path: [])
        case .viewFolder(let key, let path):
            return try await viewEntries(key, path: path)
        case .version(let file, _):
            throw .notDirectory(file.name)
        case .viewFile(_, let path, _):
            throw .notDirectory(path.last ?? "")
        }
    }

    private func viewEntries(_ key: ViewKey, path: [String]) async throws(FSError) -> [(name: String, kind: ControlNode.Kind)] {
        guard let entries = try await viewTree(key).entries(of: path) else { throw .notFound(path.last ?? "") }
        return entries.map { entry in
            switch entry.entry {
            case .folder: (entry.name, .viewFolder(key, path: path + [entry.name]))
            case .file(let item): (entry.name, .viewFile(key, path: path + [entry.name], item: item))
            }
        }
    }

    func controlNode(_ inode: UInt64) throws(FSError) -> ControlNode {
        guard let node = controlState.table.withLock({ $0.node(inode) }) else { throw .notFound("inode \(inode)") }
        return node
    }

    func rememberControl(_ kind: ControlNode.Kind) -> FileAttributes {
        let node = controlState.table.withLock { $0.remember(kind) }
        return controlAttributes(of: node.kind, inode: node.inode)
    }

    func forgetControl(_ inode: UInt64, count: UInt64) {
        controlState.table.withLock { $0.forget(inode, count: count) }
    }

    func controlAttributes(_ inode: UInt64) throws(FSError) -> FileAttributes {
        let node = try controlNode(inode)
        return controlAttributes(of: node.kind, inode: inode)
    }

    /// Folders `r-x`, files `r--` for everyone (`---` for a trashed file: Box does not serve its content).
    func controlAttributes(of kind: ControlNode.Kind, inode: UInt64) -> FileAttributes {
        func attributes(_ kind: NodeKind, size: Int64, modified: Date?, changed: Date? = nil, created: Date? = nil,
                        permissions: UInt16) -> FileAttributes {
            let modified = modified ?? mountedAt
            return FileAttributes(
                inode: inode, kind: kind, size: kind == .directory ? 4096 : UInt64(max(size, 0)), modified: modified,
                changed: changed ?? modified, created: created ?? modified, accessed: modified,
                permissions: permissions, uid: options.uid, gid: options.gid)
        }
        switch kind {
        case .top, .trashRoot, .searchRoot, .viewFolder(_, _):
            if case .viewFolder(let key, let path) = kind,
               let item = controlState.views.withLock({ $0.trees[key]?.tree.entry(at: path) }),
               case .folder(let folder?) = item {
                return attributes(.directory, size: 0, modified: folder.contentModifiedAt ?? folder.modifiedAt,
                                  changed: folder.modifiedAt, permissions: 0o555)
            }
            return attributes(.directory, size: 0, modified: mountedAt, permissions: 0o555)
        case .versionsFolder(let item), .versionsOfFile(let item):
            return attributes(.directory, size: 0, modified: item.contentModifiedAt ?? item.modifiedAt,
                              changed: item.modifiedAt, created: item.contentCreatedAt ?? item.createdAt, permissions: 0o555)
        case .version(_, let version):
            let saved = version.createdAt ?? version.modifiedAt
            return attributes(.file, size: version.size, modified: saved, permissions: 0o444)
        case .viewFile(let key, _, let item):
            return attributes(.file, size: item.size, modified: item.contentModifiedAt ?? item.modifiedAt,
                              changed: item.modifiedAt, created: item.contentCreatedAt ?? item.createdAt,
                              permissions: key == .trash ? 0 : 0o444)
        }
    }

    // MARK: Listings and reads

    func openControlDirectory(_ inode: UInt64) async throws(FSError) -> UInt64 {
        let node = try controlNode(inode)
        guard node.isDirectory else { throw .notDirectory("inode \(inode)") }
        let entries = try await controlEntries(of: node.kind)
        return handles.withLock { $0.open(.controlDirectory(ControlListing(inode: inode, entries: entries))) }
    }

    func readControlDirectory(_ listing: ControlListing, offset: Int) -> [DirectoryEntry] {
        guard offset < listing.entries.count + 2 else { return [] }
        var entries: [DirectoryEntry] = []
        for position in max(offset, 0)..<(listing.entries.count + 2) {
            if position < 2 {
                guard let attributes = try? controlAttributes(listing.inode) else { continue }
                entries.append(DirectoryEntry(name: position == 0 ? "." : "..", attributes: attributes, position: position))
            } else {
                let entry = listing.entries[position - 2]
                entries.append(DirectoryEntry(
                    name: entry.name, attributes: controlAttributes(of: entry.kind, inode: 0), position: position))
            }
        }
        return entries
    }

    func rememberControlEntry(_ listing: ControlListing, position: Int) throws(FSError) -> FileAttributes {
        guard position >= 2, position - 2 < listing.entries.count else { return try controlAttributes(listing.inode) }
        return rememberControl(listing.entries[position - 2].kind)
    }

    /// Opens a version or a search result for reading: the bytes of that Box version, read lazily through the
    /// block cache under that version's key, so they are cached like any file's and never change.
    func openControlFile(_ inode: UInt64, mode: OpenMode, truncate: Bool) throws(FSError) -> OpenedFile {
        let node = try controlNode(inode)
        guard mode == .readOnly, !truncate else { throw FSError(.readOnly, "\(controlName): the control directory is read-only") }
        let file: RemoteFile
        switch node.kind {
        case .version(let item, let version):
            file = RemoteFile(id: item.id, version: version.id, size: max(version.size, 0), sha1: version.sha1)
        case .viewFile(.trash, let path, _):
            throw FSError(.accessDenied, """
                \(controlPath(path)): Box does not serve the content of an item in the trash; restore it \
                (boxfs trash restore) to read it
                """)
        case .viewFile(_, _, let item):
            file = RemoteFile(id: item.id, version: item.contentVersion, size: max(item.size, 0), sha1: item.sha1)
        default:
            throw .isDirectory("inode \(inode)")
        }
        let reader = FileReader(file: file, store: store, logger: logger)
        let handle = handles.withLock { $0.open(.pinned(reader)) }
        // A version's bytes never change; a search result's path may stand for another file at the next search.
        let immutable = if case .version = node.kind { true } else { false }
        return OpenedFile(handle: handle, keepCache: immutable && store.isVerified(file))
    }

    private func controlPath(_ path: [String]) -> String {
        ([controlName, ControlDirectory.trashName] + path).joined(separator: "/")
    }

    // MARK: Changes: none

    /// EROFS for any change in the control directory, or to its name at the root (unless a Box item has it:
    /// the root is listed when no listing of it is cached, as after an event dropped it).
    func refuseControlChange(parent: UInt64, name: String? = nil) async throws(FSError) {
        if VirtualInode(parent) == .control { throw .readOnly(name ?? controlName) }
        guard let name, isControlName(name, parent: parent) else { return }
        if currentItem(named: name, inFolder: parent) != nil { return }
        if let folder = try? folderItem(parent), let items = try? await listing(of: folder, inode: parent),
            items.contains(where: { BoxName.same($0.name, name) })
        {
            return
        }
        throw FSError(.readOnly, "\(name): the control directory is read-only (-o control_dir=NAME frees this name)")
    }
}

/// A control folder's entries frozen when it was opened.
struct ControlListing: Sendable {
    let inode: UInt64
    let entries: [(name: String, kind: ControlNode.Kind)]
}
