import BoxAPI
import Dispatch
import Synchronization

/// When cached listings are dropped to keep memory near the working set (see `InodeTable+Eviction`).
extension FileSystem {
    /// How long the listing of a folder the kernel forgot stays, in case it is looked up again: an entry
    /// invalidation (an event, `boxfs refresh`) makes the kernel forget a subfolder it looks up again at once.
    static let forgottenListingGrace: Duration = .seconds(5)

    /// The kernel forgot `inode` `count` times. A folder it no longer holds at all loses its cached listing
    /// after `forgottenListingGrace` unless looked up again (`sweepForgottenListings`). Answers whether the node
    /// is gone.
    func forgetNode(_ inode: UInt64, count: UInt64) -> Bool {
        let (gone, firstWaiting) = tree.withLock { tree -> (Bool, Bool) in
            guard let node = tree.forget(inode, count: count) else { return (false, false) }
            guard case .box(let folderID) = node.id, node.item.kind == .folder else { return (true, false) }
            return (true, tree.noteForgotten(folderID: folderID, at: .now))
        }
        if gone { memoryReturn.noteReleased(1) }
        if firstWaiting { scheduleForgottenSweep() }
        return gone
    }

    private func scheduleForgottenSweep() {
        let delay = Self.forgottenListingGrace + .milliseconds(100)
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + .milliseconds(Int(delay / .milliseconds(1)))) {
            [weak self] in self?.sweepForgottenListings()
        }
    }

    /// Drops the listings of folders forgotten `forgottenListingGrace` ago and not looked up since (on a queue
    /// of its own, never a FUSE thread); sweeps again later while others wait.
    private func sweepForgottenListings() {
        let cutoff = ContinuousClock.now - Self.forgottenListingGrace
        let (evicted, waiting) = state.withLock { state in
            let pins = ListingPins(state)
            return state.tree.evictForgottenListings(forgottenBy: cutoff) { pins.pin($0) }
        }
        if evicted > 0 { logger.debug("listings of folders the kernel forgot: \(evicted) entries evicted") }
        memoryReturn.noteReleased(evicted)
        if waiting { scheduleForgottenSweep() }
    }

    /// Drops least recently used listings while the cached ones hold more than `listing_cache_entries` entries,
    /// down to nine tenths of it (so the sort of every listing is not paid at each fetch); `inUse`, just listed,
    /// stays whatever its size.
    func keepListingsWithinBudget(inUse folderID: String) {
        let budget = options.listingCacheEntries
        let evicted = state.withLock { state -> Int in
            guard state.tree.listings.entryCount > budget else { return 0 }
            let pins = ListingPins(state)
            return state.tree.evictListings(downTo: budget - budget / 10) { id in id == folderID || pins.pin(id) }
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
    /// The local files as they are under the state lock the pass holds.
    let locals: LocalFiles

    init(_ state: CoreState) {
        rootID = state.tree.node(InodeTable.rootInode)?.itemID
        openFolderIDs = Set(state.handles.openDirectoryInodes.compactMap { state.tree.node($0)?.itemID })
        ownChanges = state.tree.ownChanges
        locals = state.locals
    }

    func pin(_ folderID: String) -> Bool {
        folderID == rootID || openFolderIDs.contains(folderID) || ownChanges.holdsChanges(in: folderID)
            || locals.holdsFiles(inFolder: folderID)
    }
}
