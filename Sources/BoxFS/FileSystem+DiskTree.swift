import BoxAPI
import Foundation

/// The tree on disk (`DiskTree`) as the core keeps it: loaded before the mount answers anything, written once a
/// second from what changed in the memory tree (on the tree's own queue, the state lock held only to take the
/// notes), confirmed by the event stream's catch-up.
///
/// How a loaded listing ages: with the event stream followed, it is held but never fresh until the first catch-up
/// from the saved position has applied what changed meanwhile (dropping the listings it touches); then it counts as
/// listed at that moment. A listing wanted before that waits for the catch-up (at most `catchUpWait`). Without the
/// stream (`events=off`) it counts as listed when Box listed it, so `dir_cache_ttl` runs from then. While Box is out
/// of reach a held listing is used however old (`listing(of:inode:)`).
extension FileSystem {
    var diskTree: DiskTree? { backend.diskTree }

    /// How long a listing loaded from the disk waits for the stream's first catch-up before it is fetched anew.
    static let catchUpWait = Duration.seconds(3)
    /// How often the memory tree's changes are written.
    static let diskTreeInterval = 1.0

    /// Puts the listings of `snapshot` in the memory tree; answers how many. `awaitingCatchUp`: the event stream
    /// will catch up from the position they reflect (see above).
    @discardableResult
    public func loadListings(_ snapshot: DiskTree.Snapshot, awaitingCatchUp: Bool) -> Int {
        let now = ContinuousClock.now
        let wallNow = Date()
        // Indexed outside the lock (a listing's indexes cost in proportion to its entries).
        let listings = snapshot.listings.map { stored in
            let age = max(0, wallNow.timeIntervalSince(stored.fetchedAt))
            var listing = InodeTable.Listing(items: stored.items, fetchedAt: now - .milliseconds(Int64(age * 1000)))
            listing.awaitingCatchUp = awaitingCatchUp
            return (stored.folderID, listing)
        }
        return state.withLock { state in
            for (folderID, listing) in listings { state.tree.listings.load(listing, folderID: folderID) }
            if awaitingCatchUp, !listings.isEmpty { state.tree.catchUpPending = true }
            return listings.count
        }
    }

    /// The event stream caught up from its position: listings loaded from the disk are now as Box holds them.
    func streamCaughtUp() {
        let now = ContinuousClock.now
        state.withLock { state in
            state.tree.listings.confirmLoaded(at: now)
            state.tree.catchUpPending = false
        }
    }

    /// The stream's first catch-up failed: nothing waits for it any more (loaded listings stay unconfirmed).
    func streamCatchUpFailed() {
        state.withLock { $0.tree.catchUpPending = false }
    }

    /// Waits (suspended) while the listing of `folderID` was loaded from the disk and the stream's first catch-up
    /// is under way, at most `catchUpWait`.
    func waitForCatchUp(folderID: String) async {
        let deadline = ContinuousClock.now + Self.catchUpWait
        while ContinuousClock.now < deadline,
            tree.withLock({ $0.catchUpPending && $0.listings[folderID]?.awaitingCatchUp == true })
        {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Starts writing the memory tree's changes to the disk, once a second.
    public func startDiskTree() {
        guard let diskTree else { return }
        diskTree.writing.withLock { $0 = true }
        diskTree.queue.asyncAfter(deadline: .now() + Self.diskTreeInterval) { [self] in diskTreeTick() }
    }

    /// Stops the writes and writes what is left, waiting for it (the end of the mount).
    public func finishDiskTree() async {
        guard let diskTree, diskTree.writing.withLock({ $0 }) else { return }
        diskTree.writing.withLock { $0 = false }
        try? await diskTree.onQueue { [self] in
            // The last write carries every large listing, due or not.
            if let changes = takeDiskTreeChanges(final: true) { diskTree.write(changes) }
        }
    }

    /// On the tree's queue: one batch, then the next tick.
    private func diskTreeTick() {
        guard let diskTree, diskTree.writing.withLock({ $0 }) else { return }
        if let changes = takeDiskTreeChanges() { diskTree.write(changes) }
        diskTree.queue.asyncAfter(deadline: .now() + Self.diskTreeInterval) { [self] in diskTreeTick() }
    }

    /// What changed since the last batch (and the large listings whose write is due, `DiskTreePacing`), taken with the
    /// stream position in one critical section: the position written never claims events whose effect on the listings
    /// is not written with it or before. On the tree's queue only.
    func takeDiskTreeChanges(final: Bool = false) -> DiskTree.Changes? {
        guard let diskTree else { return nil }
        let now = ContinuousClock.now
        let deferred = diskTree.pacing.withLock { $0.deferred }
        let (droppedAll, taken, position) = state.withLock { state in
            let taken = state.tree.listings.takeChanges(at: now)
            let noted = Set(taken.changes.map(\.folderID))
            let due = deferred.filter { !noted.contains($0) }.map { state.tree.listings.change(of: $0, at: now) }
            return (taken.droppedAll, taken.changes + due, state.eventStream.position)
        }
        let decisions = diskTree.pacing.withLock { pacing in
            if droppedAll { pacing.droppedAll() }
            if final { pacing.allDue() }
            return taken.map { pacing.decide(folderID: $0.folderID, entries: $0.items?.count, now: now) }
        }
        let written = diskTree.lastPosition.withLock { $0 }
        let newPosition = position != written ? position : nil
        var changes = DiskTree.Changes(droppedAll: droppedAll, position: newPosition)
        let wallNow = Date()
        for (change, decision) in zip(taken, decisions) {
            switch decision {
            case .skip:
                continue
            case .delete:
                // A stale listing (fetched before a change the stream reported) is never kept: it is fetched again.
                changes.listings.append((change.folderID, wallNow, nil))
            case .write:
                let age = now - change.fetchedAt
                let seconds = Double(age.components.seconds) + Double(age.components.attoseconds) / 1e18
                // Items only the mount knows (a new file's made-up id) come back from the journal, not from here.
                let kept = (change.items ?? []).filter { if case .box = NodeID($0) { true } else { false } }
                changes.listings.append((change.folderID, wallNow.addingTimeInterval(-seconds), kept))
            }
        }
        guard changes.droppedAll || !changes.listings.isEmpty || newPosition != nil else { return nil }
        return changes
    }
}
