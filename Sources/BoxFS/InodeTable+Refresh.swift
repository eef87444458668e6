import BoxAPI

/// `boxfs refresh` (see `RefreshFile`): dropping what the tree holds for a folder.
extension InodeTable {
    /// Drops the cached listing of `folder` and, `recursive`, of every folder below it whose listing is cached.
    /// Each such folder is marked so a listing fetch already in flight is stored stale (as for an event). The
    /// effect names every listed name (to look up again) and every inode the kernel holds among them and the
    /// folders (to drop attributes and pages); `below` are the subfolders whose listings were dropped.
    mutating func dropListings(of folder: BoxItem, recursive: Bool) -> (effect: RemoteChangeEffect, below: [BoxItem]) {
        var effect = RemoteChangeEffect()
        var below: [BoxItem] = []
        var pending = [folder]
        let mark = ownChanges.mark()
        // Which listings kept on the disk only lie below is not known here: none is trusted any more.
        if recursive { listings.forgetAllDiskCopies() }
        while let current = pending.popLast() {
            remoteChangeMarks[current.id] = mark
            let folderInode = inodeByID[.box(current.id)]
            if let folderInode { effect.inodes.append(folderInode) }
            guard let listing = listings.removeValue(forKey: current.id) else { continue }
            effect.folderIDs.append(current.id)
            for item in listing.items {
                if let folderInode { effect.entries.append((folderInode, item.name)) }
                if let inode = inodeByID[.box(item.id)], item.kind == .file { effect.inodes.append(inode) }
                if recursive, item.kind == .folder, listings[item.id] != nil {
                    pending.append(item)
                    below.append(item)
                }
            }
        }
        return (effect, below)
    }
}
