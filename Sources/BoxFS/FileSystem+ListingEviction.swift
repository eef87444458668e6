import BoxAPI
import Synchronization

/// When cached listings are dropped to keep memory near the working set (see `InodeTable+Eviction`).
extension FileSystem {
    /// The kernel forgot `inode` `count` times. A folder it no longer holds at all loses its cached listing
    /// (unless pinned): the kernel will look it up, and so list it, again before it needs any of its names.
    /// Answers whether the node is gone.
    func forgetNode(_ inode: UInt64, count: UInt64) -> Bool {
        let (gone, evicted) = tree.withLock { tree -> (Bool, Int) in
            guard let item = tree.forget(inode, count: count) else { return (false, 0) }
            guard item.kind == .folder, !ListingPins(tree, openFolders: []).pin(item.id, locals: locals) else {
                return (true, 0)
            }
            return (true, tree.evictListing(of: item.id))
        }
        if gone { memoryReturn.noteReleased(1 + evicted) }
        return gone
    }

    /// Drops least recently used listings while the cached ones hold more than `listing_cache_entries` entries,
    /// down to nine tenths of it (so the sort of every listing is not paid at each fetch); `inUse`, just listed,
    /// stays whatever its size.
    func keepListingsWithinBudget(inUse folderID: String) {
        let budget = options.listingCacheEntries
        let evicted = tree.withLock { tree -> Int in
            guard tree.listings.entryCount > budget else { return 0 }
            let pins = ListingPins(tree, openFolders: handles.withLock { $0.openDirectoryInodes })
            return tree.evictListings(downTo: budget - budget / 10) { id in
                id == folderID || pins.pin(id, locals: locals)
            }
        }
        if evicted > 0 { logger.debug("listing cache over \(budget) entries: \(evicted) evicted") }
        memoryReturn.noteReleased(evicted)
    }
}

/// Which listings must stay cached, taken from the tree under its lock before any is dropped: the mounted
/// folder's; one open for reading; one with changes `OwnChanges` keeps for a fetch in flight; one of a folder
/// with local files (their uploads land in its listing as Box answers them).
private struct ListingPins {
    let rootID: String?
    let openFolderIDs: Set<String>
    let ownChanges: OwnChanges

    init(_ tree: InodeTable, openFolders: Set<UInt64>) {
        rootID = tree.node(InodeTable.rootInode)?.item.id
        openFolderIDs = Set(openFolders.compactMap { tree.node($0)?.item.id })
        ownChanges = tree.ownChanges
    }

    /// Called under the tree's lock (`locals` comes after it in the lock order).
    func pin(_ folderID: String, locals: borrowing Mutex<LocalFiles>) -> Bool {
        folderID == rootID || openFolderIDs.contains(folderID) || ownChanges.holdsChanges(in: folderID)
            || locals.withLock { $0.holdsFiles(inFolder: folderID) }
    }
}
