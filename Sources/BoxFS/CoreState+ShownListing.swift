import BoxAPI

/// A folder's listing as a fetch (or a read of the tree on disk) stored it in the memory tree, handed to every caller
/// that waited for it (`FileSystem.listing(of:inode:)`, through the listings' single flight), and
/// `OwnChanges.current` as it was stored.
struct StoredListing: Sendable {
    let items: [BoxItem]
    let ownChangesAt: UInt64
}

extension CoreState {
    /// The folder as it is shown now (Box's listing with the local files laid over it), from the listing `stored`
    /// that the caller waited for; nil when that could be wrong: the caller lists again.
    ///
    /// Why not `stored.items` with the local files now laid over them: the caller resumes some time after the store
    /// (its turn on the pool), and the items are a copy. An upload that landed meanwhile went into the tree's listing
    /// (`uploadLanded`), not into the copy, and its local file may have left `LocalFiles` since (`dropIfIdle`): the
    /// copy overlaid then shows neither, a name the mount holds answered ENOENT (a lookup), and a `create` of it then
    /// met the name in the listing (EEXIST: model seeds 159396731, 908776881 with `listing_cache_entries=4`). So the
    /// listing the tree holds now is overlaid, in this one critical section with the local files. When the tree no
    /// longer holds it (evicted, dropped since the store), the copy is right only if the mount changed no listing
    /// since (`OwnChanges.current`, which also moves at a drop by an event); else nil.
    func shownListing(_ stored: StoredListing, folderID: String) -> [BoxItem]? {
        if let listing = tree.listings[folderID] { return locals.overlay(listing.items, folderID: folderID) }
        guard tree.ownChanges.current == stored.ownChangesAt else { return nil }
        return locals.overlay(stored.items, folderID: folderID)
    }

    /// The folder as shown now from its cached listing if that is fresh by `ttl` (one critical section with the local
    /// files, as in `shownListing`); nil when it has to be listed.
    mutating func shownFreshListing(folderID: String, ttl: Duration, now: ContinuousClock.Instant) -> [BoxItem]? {
        guard let cached = tree.freshListing(folderID: folderID, ttl: ttl, now: now) else { return nil }
        return locals.overlay(cached.items, folderID: folderID)
    }
}
