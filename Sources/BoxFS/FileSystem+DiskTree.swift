import BoxAPI
import Foundation

/// The tree on disk (`DiskTree`) as the core keeps it: which listings it holds is read before the mount answers
/// anything, each listing is read when first used (`listingFromDisk`), and what changed in the memory tree is written
/// once a second (on the tree's own queue, the state lock held only to take the notes); the event stream's catch-up
/// confirms it. The memory tree is a cache of it: a listing evicted from memory is read back from the disk, not
/// asked of Box again (`ListingCache` says when a disk copy is trusted).
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

    /// Notes which listings the disk holds (`index`), each read when first used; answers how many.
    /// `awaitingCatchUp`: the event stream will catch up from the position they reflect (see above).
    @discardableResult
    public func loadIndex(_ index: DiskTree.Index, awaitingCatchUp: Bool) -> Int {
        let now = ContinuousClock.now
        let wallNow = Date()
        return state.withLock { state in
            for (folderID, fetchedAt) in index.folders {
                let age = max(0, wallNow.timeIntervalSince(fetchedAt))
                state.tree.listings.noteOnDisk(
                    folderID,
                    .init(fetchedAt: now - .milliseconds(Int64(age * 1000)), awaitingCatchUp: awaitingCatchUp))
            }
            if awaitingCatchUp, !index.folders.isEmpty { state.tree.catchUpPending = true }
            return index.folders.count
        }
    }

    /// The listing of `folderID` read back from the tree on disk into memory, when the disk holds it as the memory
    /// tree last did and it is fresh by `ttl` (or `anyAge`: Box is out of reach); nil otherwise (list from Box).
    /// What changed before is written first, on the tree's queue, so the read never sees a copy a change already
    /// made untrue; one made untrue during the read is not installed (`ListingCache.restore`).
    func listingFromDisk(folderID: String, ttl: Duration, anyAge: Bool) async -> StoredListing? {
        guard let diskTree, diskTree.writing.withLock({ $0 }) else { return nil }
        let now = ContinuousClock.now
        let kept = tree.withLock { tree -> ListingCache.DiskOnly? in
            guard let entry = tree.listings.onDiskOnly[folderID], !entry.awaitingCatchUp || anyAge else { return nil }
            return anyAge || now - entry.fetchedAt < ttl ? entry : nil
        }
        guard let kept else { return nil }
        let read = try? await diskTree.onQueue { [self] () -> (UInt64, [BoxItem])? in
            let (changes, serial) = takeDiskTreeChangesWithSerial()
            if let changes { diskTree.write(changes) }
            guard let (_, items) = diskTree.readListing(folderID: folderID) else { return nil }
            return (serial, items)
        }
        guard let (serial, items) = read ?? nil else { return nil }
        var listing = InodeTable.Listing(items: items, fetchedAt: kept.fetchedAt)
        listing.awaitingCatchUp = kept.awaitingCatchUp
        let restored = tree.withLock { tree -> StoredListing? in
            guard tree.listings.restore(listing, folderID: folderID, serialAtRead: serial) else { return nil }
            return tree.listings[folderID].map { StoredListing(items: $0.items, ownChangesAt: tree.ownChanges.current) }
        }
        if restored != nil {
            logger.debug("listing \(folderID) read back from the tree on disk (\(items.count) entries)")
            keepListingsWithinBudget(inUse: folderID)
        }
        return restored
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
            tree.withLock({ tree in
                tree.catchUpPending
                    && (tree.listings[folderID]?.awaitingCatchUp ?? tree.listings.onDiskOnly[folderID]?.awaitingCatchUp) == true
            })
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

    /// Stops the writes without writing what is left (a killed process writes nothing more; tests of the core).
    public func stopDiskTree() {
        diskTree?.writing.withLock { $0 = false }
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
        takeDiskTreeChangesWithSerial(final: final).changes
    }

    /// `takeDiskTreeChanges`, and `ListingCache.diskSerial` as the notes were taken.
    private func takeDiskTreeChangesWithSerial(final: Bool = false) -> (changes: DiskTree.Changes?, serial: UInt64) {
        guard let diskTree else { return (nil, 0) }
        let now = ContinuousClock.now
        let deferred = diskTree.pacing.withLock { $0.deferred }
        let (notes, taken, position) = state.withLock { state in
            let notes = state.tree.listings.takeChanges(at: now)
            let noted = Set(notes.changes.map(\.folderID))
            let due = deferred.filter { !noted.contains($0) }.map { state.tree.listings.change(of: $0, at: now) }
            return (notes, notes.changes + due, state.eventStream.position)
        }
        let droppedAll = notes.droppedAll
        let decisions = diskTree.pacing.withLock { pacing in
            if droppedAll { pacing.droppedAll() }
            if final { pacing.allDue() }
            return taken.map { pacing.decide(folderID: $0.folderID, entries: $0.items?.count, now: now) }
        }
        let written = diskTree.lastPosition.withLock { $0 }
        let newPosition = position != written ? position : nil
        var changes = DiskTree.Changes(
            droppedAll: droppedAll, touchedItems: notes.touchedItems, diskOnly: notes.diskOnly, position: newPosition)
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
        guard changes.droppedAll || !changes.listings.isEmpty || !changes.touchedItems.isEmpty || newPosition != nil
        else { return (nil, notes.serial) }
        return (changes, notes.serial)
    }
}
