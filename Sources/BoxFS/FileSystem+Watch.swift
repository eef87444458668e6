import BoxAPI
import Foundation

/// `boxfs watch` (see `WatchFile`): opening a folder's watch file, and the changes of each page of events the
/// follower applies, handed to the open ones.
extension FileSystem {
    /// The attributes of `<folder>/.boxfs\watch`, nil for any other name: read-only for the mount's owner.
    func watchFileAttributes(parent: UInt64, name: String) -> FileAttributes? {
        guard name == WatchFile.name, tree.withLock({ $0.node(parent)?.item.kind == .folder }) else { return nil }
        var attributes = statusFileAttributes(inode: WatchFile.inode(folder: parent))
        attributes.permissions = 0o400
        return attributes
    }

    /// Opens a watch file: read-only; the stream starts with the next page of events applied.
    func openWatchFile(folder: UInt64, mode: OpenMode, truncate: Bool) throws(FSError) -> OpenedFile {
        guard mode == .readOnly, !truncate else { throw FSError(.accessDenied, "\(WatchFile.name) is read-only") }
        if singleFileID != nil { throw FSError(.notSupported, "boxfs watch is not available on a mount of a single file") }
        _ = try folderItem(folder)
        let subscription = watchers.subscribe(folder: folder)
        var opened = OpenedFile(handle: handles.withLock { $0.open(.watch(subscription)) }, keepCache: false)
        opened.directIO = true
        return opened
    }

    /// Ends every open watch stream (the mount is going away): each reader's next read answers end of file.
    public func closeWatchers() {
        watchers.closeAll()
    }

    /// The change `event` reports about `item`, as a watcher sees it, from the tree before the change is applied;
    /// nil for an event that changes nothing (a download) or about an item whose place the mount cannot tell.
    func watchChange(for event: BoxEvent, item: BoxItem) -> WatchChange? {
        guard let kind = WatchChange.kind(eventType: event.eventType, sequenceID: item.sequenceID) else { return nil }
        let remembered = watchers.lastPath(of: item.id)
        let (known, placed, held) = tree.withLock { tree -> (String?, String?, BoxItem?) in
            let known = tree.mountPath(ofItem: item.id)
            var placed: String?
            if let parentID = item.parentID, let folder = tree.mountPath(ofFolderID: parentID) {
                placed = InodeTable.joined(folder, item.name)
            } else if let collection = event.pathCollection {
                placed = tree.mountPath(under: collection, name: item.name)
            }
            let held = tree.listingsHolding(id: item.id).first?.item
                ?? tree.inodeByID[.box(item.id)].flatMap { tree.nodes[$0]?.item }
            return (known, placed, held)
        }
        let before = remembered ?? known
        var change = WatchChange()
        change.kind = kind
        switch kind {
        case "trashed", "deleted":
            change.path = before ?? placed
        case "renamed", "moved":
            change.path = placed
            if let before, before != placed { change.oldPath = before }
        default:
            change.path = placed ?? before
        }
        guard change.path != nil else { return nil }
        change.byName = event.createdBy?.name
        change.byLogin = event.createdBy?.login
        change.at = event.createdAt ?? item.modifiedAt
        change.itemID = item.id
        change.itemType = item.kind.rawValue
        change.eventID = event.eventID
        change.eventType = event.eventType
        if !event.removesItem, let held, InodeTable.sameState(held, item) { change.thisMount = true }
        return change
    }

    /// Hands `change` to every open watch file at or above it, and remembers where the item now is.
    func publish(_ change: WatchChange, itemID: String) {
        let removed = change.kind == "trashed" || change.kind == "deleted"
        watchers.remember(itemID, at: removed ? nil : change.path)
        guard let line = WatchHub.line(change) else { return }
        for subscription in watchers.all {
            guard let folder = tree.withLock({ $0.mountPath(ofInode: subscription.folder) }), change.isUnder(folder) else {
                continue
            }
            subscription.push(line, capacity: WatchHub.capacity)
        }
    }
}

/// Paths relative to the mount's root, from what the tree holds (`""` is the root).
extension InodeTable {
    static func joined(_ folder: String, _ name: String) -> String { folder.isEmpty ? name : folder + "/" + name }

    /// The path of the node `inode`; nil when the tree has no such node (or it was detached).
    func mountPath(ofInode inode: UInt64) -> String? {
        var names: [String] = []
        var current = inode
        while current != Self.rootInode {
            guard let node = nodes[current], node.itemID != nil, names.count < 4096 else { return nil }
            names.append(node.item.name)
            current = node.parentInode
        }
        return names.reversed().joined(separator: "/")
    }

    /// The path of the folder `id`: its node's, else its entry's in a cached listing of a folder the tree places.
    func mountPath(ofFolderID id: String, depth: Int = 0) -> String? {
        if let inode = inodeByID[.box(id)] { return mountPath(ofInode: inode) }
        guard depth < 256, let holder = listingsHolding(id: id).first,
              let folder = mountPath(ofFolderID: holder.folderID, depth: depth + 1)
        else { return nil }
        return Self.joined(folder, holder.item.name)
    }

    /// Where the tree shows the item `id` now: in a cached listing, else as a node.
    func mountPath(ofItem id: String) -> String? {
        if let holder = listingsHolding(id: id).first, let folder = mountPath(ofFolderID: holder.folderID) {
            return Self.joined(folder, holder.item.name)
        }
        return inodeByID[.box(id)].flatMap { mountPath(ofInode: $0) }
    }

    /// The path of `name` in the folder an event's `path_collection` ends with: from the deepest folder of it the tree
    /// places (the mounted folder at least), then the names Box gives below it; nil when none is placed.
    func mountPath(under collection: [BoxPathEntry], name: String) -> String? {
        for index in collection.indices.reversed() {
            guard let folder = mountPath(ofFolderID: collection[index].id) else { continue }
            return (collection[(index + 1)...].map(\.name) + [name]).reduce(folder, Self.joined)
        }
        return nil
    }
}
