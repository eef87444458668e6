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

    /// Feeds a read-only open to `ListingOrderReads` and `SmallFilesAhead`: starts fetching ahead the content of the
    /// next small files of a walk in listing order (`BlockStore.fetchAhead`), and learning the download locations of
    /// the other files named, so that reading each of them later takes one round trip instead of two (none for a
    /// small file fetched ahead). Returns at once (no network on the caller's path).
    func prepareNextFiles(afterOpening item: BoxItem, inode: UInt64) {
        guard let (folderID, listing, position) = placeInParentListing(of: item, inode: inode) else { return }
        let (next, walking, restarted) = listingOrderReads.withLock { reads in
            let next = reads.opened(position: position, of: listing.items, folderID: folderID)
            let run = reads.runLength(in: folderID)
            return (next, run >= reads.runLength, run == 0)
        }
        let plan = smallFilesAhead.withLock { ahead in
            ahead.opened(item, position: position, of: listing.items, folderID: folderID, walking: walking,
                         restarted: restarted)
        }
        for file in plan.cancel { store.cancelAhead(Self.remoteFile(file)) }
        guard !next.isEmpty || !plan.fetch.isEmpty else { return }
        // Files with local content are read from it, never from Box.
        let (remote, small) = locals.withLock { files in
            (next.filter { files.file(itemID: $0.id) == nil }, plan.fetch.filter { files.file(itemID: $0.id) == nil })
        }
        // Content first (it needs no location of its own: its fetch asks for it). A file the store refuses (in the
        // cache already, or no room in read-ahead's budget now) leaves the window, which asks again at the next open.
        let refused = small.filter { !store.fetchAhead(Self.remoteFile($0)) }.map(\.id)
        if !refused.isEmpty { smallFilesAhead.withLock { $0.leave(Set(refused)) } }
        // The store learns no location of a file being fetched ahead or held (`BlockStore.prepare`).
        for file in remote { store.prepare(Self.remoteFile(file)) }
    }

    private static func remoteFile(_ item: BoxItem) -> RemoteFile {
        RemoteFile(id: item.id, version: item.contentVersion, size: max(item.size, 0), sha1: item.sha1)
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
        let offline = client.connectivity.offline != nil
        // Not `freshListing`: a listing loaded from the disk and awaiting the stream's catch-up counts as listed here
        // (the catch-up, not a fetch, makes it current: a remount's walk lists nothing), and no use is recorded. One
        // kept on the disk only is read back ahead (no call: `loadListing`), unless it awaits that catch-up while Box
        // answers.
        let unlisted = tree.withLock { tree in
            next.filter { item in
                guard let cached = tree.listings[item.id] else {
                    return offline || tree.listings.onDiskOnly[item.id]?.awaitingCatchUp != true
                }
                return cached.isStale || now - cached.fetchedAt >= ttl
            }
        }
        for item in unlisted {
            listingsAhead.withLock { ahead in
                ahead[parentID, default: [:]][item.id] = Task { [self] in
                    await CallPriority.background { _ = try? await loadListing(of: item, ttl: ttl) }
                    listingsAhead.withLock { ahead in
                        ahead[parentID]?[item.id] = nil
                        if ahead[parentID]?.isEmpty == true { ahead[parentID] = nil }
                    }
                }
            }
        }
    }
}
