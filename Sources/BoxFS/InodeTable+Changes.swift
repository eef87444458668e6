import BoxAPI

/// Changes the mount makes itself (a new folder, an upload, a rename, a delete), applied to the
/// cached listings and nodes at once, so the next lookup or `ls` shows them without asking Box.
extension InodeTable {
    /// The inode the kernel knows for an item's id (a Box id, or the one a local file new to Box shows).
    func inode(forItemID id: String) -> UInt64? { inodeByID[NodeID(itemID: id)] }

    /// The inode the kernel knows for `id` (a detached id has none: no node is keyed by it).
    func inode(for id: NodeID) -> UInt64? { inodeByID[id] }

    /// The path of a folder below the mount's root (`docs/2024`; empty for the root), as far as the
    /// kernel still knows its ancestors; nil for a folder it does not know.
    func path(ofFolderID id: String) -> String? {
        guard var inode = inodeByID[.box(id)] else { return nil }
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
        if let inode = inodeByID[NodeID(item)] { nodes[inode]?.item = item }
    }

    /// Takes the item with `id` out of the cached listing of `folderID`.
    mutating func removeFromListing(id: String, folderID: String) {
        ownChanges.record(.remove(id: id), in: folderID)
        listings[folderID]?.remove(id: id)
    }

    /// The item behind an inode got another id (a new file reached Box, or its local content now
    /// belongs to another file): the inode stays, so open handles and the kernel's cache stay valid. Another node
    /// that stood for the new id is detached.
    mutating func rebind(id oldID: String, to item: BoxItem) {
        let old = NodeID(itemID: oldID), new = NodeID(item)
        guard let inode = inodeByID[old] else { return }
        if old != new {
            inodeByID[old] = nil
            if let other = inodeByID[new], other != inode { nodes[other]?.id = .detached(other) }
            inodeByID[new] = inode
            nodes[inode]?.id = new
        }
        nodes[inode]?.item = item
    }

    /// The kernel may still hold the inode of an item that is gone (deleted, replaced by a rename):
    /// it no longer stands for that id, so a later lookup of the id makes a fresh inode.
    mutating func detach(id: String) {
        guard let inode = inodeByID.removeValue(forKey: NodeID(itemID: id)) else { return }
        nodes[inode]?.id = .detached(inode)
    }

    /// The id the node of `inode` stands for now, or `id` when it is gone or detached. An upload of a new file
    /// landing rebinds its inode from `.local` to `.box` of its Box id: a caller that took an item before an
    /// `await` finds its current id through the inode.
    func currentID(inode: UInt64?, else id: String) -> String {
        guard let inode, let node = nodes[inode], !node.id.isDetached else { return id }
        return node.item.id
    }

    /// Sets the parent of the node of `id` (after a move).
    mutating func setParent(id: String, parentInode: UInt64) {
        guard let inode = inodeByID[NodeID(itemID: id)] else { return }
        nodes[inode]?.parentInode = parentInode
    }
}

extension InodeTable {
    /// Refreshes the node of `id` (a file that exists only here: no listing holds it).
    mutating func updateNode(id: String, item: BoxItem) {
        guard let inode = inodeByID[NodeID(itemID: id)] else { return }
        nodes[inode]?.item = item
    }
}
