import BoxAPI

/// Changes the mount makes itself (a new folder, an upload, a rename, a delete), applied to the
/// cached listings and nodes at once, so the next lookup or `ls` shows them without asking Box.
extension InodeTable {
    /// The inode the kernel knows for a Box (or local-only) item id.
    func inode(forItemID id: String) -> UInt64? { inodeByBoxID[id] }

    /// The path of a folder below the mount's root (`docs/2024`; empty for the root), as far as the
    /// kernel still knows its ancestors; nil for a folder it does not know.
    func path(ofFolderID id: String) -> String? {
        guard var inode = inodeByBoxID[id] else { return nil }
        var names: [String] = []
        while inode != Self.rootInode {
            guard let node = nodes[inode], names.count < 4096 else { return nil }
            names.append(node.item.name)
            inode = node.parentInode
        }
        return names.reversed().joined(separator: "/")
    }

    /// Puts `item` into the cached listing of `folderID` (if one is cached), replacing an entry with
    /// the same id or the same name, and refreshes its node.
    mutating func upsert(_ item: BoxItem, inFolder folderID: String) {
        ownChanges.record(.upsert(item), in: folderID)
        listings[folderID]?.upsert(item)
        if let inode = inodeByBoxID[item.id] { nodes[inode]?.item = item }
    }

    /// Takes the item with `id` out of the cached listing of `folderID`.
    mutating func removeFromListing(id: String, folderID: String) {
        ownChanges.record(.remove(id: id), in: folderID)
        listings[folderID]?.remove(id: id)
    }

    /// The item behind an inode got another id (a new file reached Box, or its local content now
    /// belongs to another file): the inode stays, so open handles and the kernel's cache stay valid.
    mutating func rebind(id oldID: String, to item: BoxItem) {
        guard let inode = inodeByBoxID[oldID] else { return }
        if oldID != item.id {
            inodeByBoxID[oldID] = nil
            if let other = inodeByBoxID[item.id], other != inode { nodes[other]?.item.id = Self.detachedID(other) }
            inodeByBoxID[item.id] = inode
        }
        nodes[inode]?.item = item
    }

    /// The kernel may still hold the inode of an item that is gone (deleted, replaced by a rename):
    /// it no longer stands for that id, so a later lookup of the id makes a fresh inode.
    mutating func detach(id: String) {
        guard let inode = inodeByBoxID.removeValue(forKey: id) else { return }
        nodes[inode]?.item.id = Self.detachedID(inode)
    }

    /// The id the node of `inode` stands for now, or `id` when it is gone or detached. An upload of a new file
    /// landing rebinds its inode from the made-up `local-N` id to its Box id: a caller that took an item before
    /// an `await` finds its current id through the inode.
    func currentID(inode: UInt64?, else id: String) -> String {
        guard let inode, let now = nodes[inode]?.item.id, !Self.isDetached(now) else { return id }
        return now
    }

    /// Sets the parent of the node of `id` (after a move).
    mutating func setParent(id: String, parentInode: UInt64) {
        guard let inode = inodeByBoxID[id] else { return }
        nodes[inode]?.parentInode = parentInode
    }

    private static func detachedID(_ inode: UInt64) -> String { "detached-\(inode)" }

    /// Whether a node's id says it was detached (its item deleted or replaced while the kernel held it).
    static func isDetached(_ id: String) -> Bool { id.hasPrefix("detached-") }
}

extension InodeTable {
    /// Refreshes the node of `id` (a file that exists only here: no listing holds it).
    mutating func updateNode(id: String, item: BoxItem) {
        guard let inode = inodeByBoxID[id] else { return }
        nodes[inode]?.item = item
    }
}
