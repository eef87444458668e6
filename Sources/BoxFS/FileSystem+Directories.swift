import BoxAPI

/// What readdirplus hands the kernel for one entry of a directory snapshot (see `rememberEntry`).
public enum ListedEntry: Sendable {
    /// Linked to its node: the kernel counts a lookup.
    case node(FileAttributes)
    /// Shown by name only: the kernel looks it up when it needs it.
    case nameOnly
    /// Gone since the snapshot: left out.
    case gone
}

extension FileSystem {
    /// Opens a folder for reading: takes a snapshot of its listing, so paging through it with
    /// offsets stays consistent even if the cache is refreshed meanwhile.
    public func openDirectory(_ inode: UInt64) async throws(FSError) -> UInt64 {
        if let virtual = VirtualInode(inode) { return try await openVirtualDirectory(virtual, inode: inode) }
        let folder = try folderItem(inode)
        let items = try await listing(of: folder, inode: inode)
        prepareNextFolders(afterOpening: folder, inode: inode)
        let parent = tree.withLock { $0.node(inode)?.parentInode } ?? inode
        return handles.withLock { $0.open(.directory(DirectorySnapshot(inode: inode, parent: parent, items: items))) }
    }

    /// Entries from position `offset` on; positions 0 and 1 are "." and "..". Entries carry inode 0
    /// until the adapter hands them to the kernel and calls `rememberEntry`, because readdirplus
    /// counts as a lookup only for the entries that fit in the kernel's buffer.
    public func readDirectory(handle: UInt64, offset: Int) throws(FSError) -> [DirectoryEntry] {
        let opened = handles.withLock { $0.handle(handle) }
        if case .controlDirectory(let listing)? = opened { return readControlDirectory(listing, offset: offset) }
        guard case .directory(let snapshot)? = opened else { throw .badHandle }
        guard offset < snapshot.items.count + 2 else { return [] }
        var entries: [DirectoryEntry] = []
        for position in max(offset, 0)..<(snapshot.items.count + 2) {
            switch position {
            case 0, 1:
                let inode = position == 0 ? snapshot.inode : snapshot.parent
                guard let attributes = try? attributes(inode) else { continue }
                entries.append(DirectoryEntry(name: position == 0 ? "." : "..", attributes: attributes, position: position))
            default:
                let item = snapshot.items[position - 2]
                entries.append(DirectoryEntry(name: item.name, attributes: attributes(of: item, inode: 0), position: position))
            }
        }
        return entries
    }

    /// Counts a kernel reference for an entry readdirplus sends, and returns its attributes with its inode.
    /// `.gone` when the folder no longer holds that name (renamed or deleted since the snapshot): the entry is
    /// left out, since a node made from the snapshot's item would bring back the old name (a later open of the
    /// new name would find that node, and its upload would rename the Box file back). `.nameOnly` when which
    /// file the name stands for now cannot be told without asking Box (the folder's listing was dropped since
    /// the snapshot, or a new file's upload landed and its made-up id is gone): the kernel gets the name and
    /// looks it up itself.
    public func rememberEntry(handle: UInt64, position: Int) throws(FSError) -> ListedEntry {
        let opened = handles.withLock { $0.handle(handle) }
        if case .controlDirectory(let listing)? = opened {
            return .node(try rememberControlEntry(listing, position: position))
        }
        guard case .directory(let snapshot)? = opened else { throw .badHandle }
        guard position >= 2, position - 2 < snapshot.items.count else { return .node(try attributes(snapshot.inode)) }
        // The snapshot may be older than writes, uploads and renames since: the kernel is given what the
        // folder holds under that name now (a new file's made-up id may have become its Box id meanwhile).
        let listed = snapshot.items[position - 2]
        switch currentItem(named: listed.name, inFolder: snapshot.inode) {
        case .some(let current): return remember(current, parent: snapshot.inode).map(ListedEntry.node) ?? .nameOnly
        case .none where folderIsListed(snapshot.inode): return .gone
        // No listing to tell (dropped by an event, a refresh or the eviction): the snapshot's item may have been
        // renamed or replaced since, and linked under this name it would take the writes meant for a new file of
        // this name (model seed 22069). The kernel looks the name up itself.
        case .none: return .nameOnly
        }
    }

    /// Whether the mount holds a listing of the folder (then a name missing from it is gone).
    func folderIsListed(_ inode: UInt64) -> Bool {
        tree.withLock { tree in tree.node(inode)?.itemID.map { tree.listings[$0] != nil } ?? false }
    }

    /// What the folder shows under `name` now (local files over its cached listing, however old), or nil.
    func currentItem(named name: String, inFolder inode: UInt64) -> BoxItem? {
        // One read of both parts: a landing upload between a read of the listing and one of the local files would
        // show neither its local file nor what landed.
        state.withLock { state in
            guard let folderID = state.tree.node(inode)?.itemID, let listing = state.tree.listings[folderID] else { return nil }
            return state.locals.overlaid(named: name, in: listing, folderID: folderID)
        }
    }

    public func releaseDirectory(handle: UInt64) {
        _ = handles.withLock { $0.close(handle) }
    }
}
