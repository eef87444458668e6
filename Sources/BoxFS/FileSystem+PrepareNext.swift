import BoxAPI
import Transfers

extension FileSystem {
    /// The cached listing of the folder holding `item` (at `inode`), and where `item` stands in it; nil when that
    /// listing is not held, or when the inode is the mount's root. The listing is copied out (copy on write: no copy
    /// of its items) so that the lock it is read under never nests with another.
    private func placeInParentListing(
        of item: BoxItem, inode: UInt64
    ) -> (folderID: String, listing: InodeTable.Listing, position: Int)? {
        let found = tree.withLock { tree -> (folderID: String, listing: InodeTable.Listing)? in
            guard let parent = tree.node(inode)?.parentInode, parent != inode, let folderID = tree.node(parent)?.itemID,
                let listing = tree.listings[folderID]
            else { return nil }
            return (folderID, listing)
        }
        guard let (folderID, listing) = found, let position = listing.position(of: item.name),
            listing.items[position].id == item.id
        else { return nil }
        return (folderID, listing, position)
    }

    /// Feeds a read-only open to `ListingOrderReads` and starts learning the download locations of
    /// the files it names, so that reading each of them later takes one round trip instead of two.
    /// Returns at once (no network on the caller's path); moves no content.
    func prepareNextFiles(afterOpening item: BoxItem, inode: UInt64) {
        guard let (folderID, listing, position) = placeInParentListing(of: item, inode: inode) else { return }
        let next = listingOrderReads.withLock { $0.opened(position: position, of: listing.items, folderID: folderID) }
        guard !next.isEmpty else { return }
        // Files with local content are read from it, never from Box.
        let remote = locals.withLock { files in next.filter { files.file(itemID: $0.id) == nil } }
        for file in remote {
            store.prepare(RemoteFile(id: file.id, version: file.contentVersion, size: file.size, sha1: file.sha1))
        }
    }
}

extension FileSystem {
    /// Feeds an `opendir` of a sub-folder to `folderWalks`, and lists ahead the next sub-folders a walk in listing
    /// order (`ls -R`, `find`, `du`) will open, in the background under Box's rate limits: a walk then waits on
    /// about one listing at a time less, as several are on the wire at once (at most `folderWalk.lookahead`
    /// ahead of it). An open out of order ends the walk: its listings not fetched yet are cancelled.
    /// Returns at once (no network on the caller's path).
    func prepareNextFolders(afterOpening folder: BoxItem, inode: UInt64) {
        guard let (parentID, listing, position) = placeInParentListing(of: folder, inode: inode) else { return }
        let (next, restarted) = folderWalks.withLock { walks in
            (walks.opened(position: position, of: listing.items, folderID: parentID), walks.runLength(in: parentID) == 0)
        }
        if restarted {
            let abandoned = listingsAhead.withLock { $0.removeValue(forKey: parentID) } ?? [:]
            abandoned.values.forEach { $0.cancel() }
        }
        guard !next.isEmpty else { return }
        let ttl = listingTTL
        let now = ContinuousClock.now
        // Not `freshListing`: a listing loaded from the disk and awaiting the stream's catch-up counts as listed here
        // (the catch-up, not a fetch, makes it current: a remount's walk lists nothing), and no use is recorded.
        let unlisted = tree.withLock { tree in
            next.filter { item in
                guard let cached = tree.listings[item.id] else {
                    // Kept on the disk only: the walk reads it back from there, no call to make ahead.
                    guard let kept = tree.listings.onDiskOnly[item.id] else { return true }
                    return !kept.awaitingCatchUp && now - kept.fetchedAt >= ttl
                }
                return cached.isStale || now - cached.fetchedAt >= ttl
            }
        }
        for item in unlisted {
            listingsAhead.withLock { ahead in
                ahead[parentID, default: [:]][item.id] = Task { [self] in
                    await CallPriority.background { _ = try? await fetchAndStoreListing(folderID: item.id) }
                    listingsAhead.withLock { ahead in
                        ahead[parentID]?[item.id] = nil
                        if ahead[parentID]?.isEmpty == true { ahead[parentID] = nil }
                    }
                }
            }
        }
    }
}
