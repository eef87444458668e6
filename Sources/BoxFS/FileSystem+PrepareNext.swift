import BoxAPI
import Transfers

extension FileSystem {
    /// Feeds a read-only open to `ListingOrderReads` and starts learning the download locations of
    /// the files it names, so that reading each of them later takes one round trip instead of two.
    /// Returns at once (no network on the caller's path); moves no content.
    func prepareNextFiles(afterOpening item: BoxItem, inode: UInt64) {
        let found = tree.withLock { tree -> (folderID: String, listing: InodeTable.Listing)? in
            guard let parent = tree.node(inode)?.parentInode, let folderID = tree.node(parent)?.itemID,
                let listing = tree.listings[folderID]
            else { return nil }
            return (folderID, listing)
        }
        // The listing is copied out (copy on write: no copy of its items) so the two locks never nest.
        guard let (folderID, listing) = found, let position = listing.position(of: item.name),
            listing.items[position].id == item.id
        else { return }
        let next = listingOrderReads.withLock { $0.opened(position: position, of: listing.items, folderID: folderID) }
        guard !next.isEmpty else { return }
        // Files with local content are read from it, never from Box.
        let remote = locals.withLock { files in next.filter { files.file(itemID: $0.id) == nil } }
        for file in remote {
            store.prepare(RemoteFile(id: file.id, version: file.contentVersion, size: file.size, sha1: file.sha1))
        }
    }
}
