import BoxAPI

/// The cached folder listings of `InodeTable`, by Box folder id, with how many entries they hold in all and
/// when each was last used: what the eviction under `listing_cache_entries` needs (see `InodeTable+Eviction`).
///
/// Reads and in-place changes go through the subscript (`listings[id]?.upsert(item)` changes the listing where
/// it lies, no copy of its items), which keeps the entry count true whatever the change.
///
/// With `tracksChanges` (a mount that keeps the tree on disk, `DiskTree`), every folder whose listing is stored,
/// changed or dropped, by whatever path, is noted in `changed` (and a drop of all in `droppedAll`), so the disk copy
/// follows the memory tree exactly: `FileSystem+DiskTree` takes the notes under the state lock and writes them
/// off it. Eviction drops the disk copy too: the disk never holds a listing memory does not.
struct ListingCache {
    private var storage: [String: InodeTable.Listing] = [:]
    /// The use counter's value at each listing's last store or use: the smallest is the least recently used.
    private var lastUse: [String: UInt64] = [:]
    private var clock: UInt64 = 0
    /// Entries of every cached listing.
    private(set) var entryCount = 0
    /// Whether changes are noted for the tree on disk (off: nothing is noted, nothing grows).
    var tracksChanges = false
    /// Folders whose listing changed (stored, changed in place, dropped) since the notes were last taken.
    private(set) var changed: Set<String> = []
    /// Every listing was dropped since the notes were last taken (before the folders in `changed`).
    private(set) var droppedAll = false

    var count: Int { storage.count }
    var keys: Dictionary<String, InodeTable.Listing>.Keys { storage.keys }
    var all: [String: InodeTable.Listing] { storage }

    subscript(folderID: String) -> InodeTable.Listing? {
        get { storage[folderID] }
        _modify {
            let before = storage[folderID]?.items.count ?? 0
            if tracksChanges { changed.insert(folderID) }
            defer {
                let after = storage[folderID]?.items.count
                entryCount += (after ?? 0) - before
                if after == nil {
                    lastUse[folderID] = nil
                } else if lastUse[folderID] == nil {
                    touch(folderID)
                }
            }
            yield &storage[folderID]
        }
    }

    /// The listing was stored or used now.
    mutating func touch(_ folderID: String) {
        guard storage[folderID] != nil else { return }
        clock += 1
        lastUse[folderID] = clock
    }

    @discardableResult
    mutating func removeValue(forKey folderID: String) -> InodeTable.Listing? {
        guard let listing = storage.removeValue(forKey: folderID) else { return nil }
        if tracksChanges { changed.insert(folderID) }
        entryCount -= listing.items.count
        lastUse[folderID] = nil
        return listing
    }

    mutating func removeAll() {
        storage = [:]
        lastUse = [:]
        entryCount = 0
        if tracksChanges {
            changed = []
            droppedAll = true
        }
    }

    /// Puts a listing read from the disk in, noting no change (the disk has it already).
    mutating func load(_ listing: InodeTable.Listing, folderID: String) {
        entryCount += listing.items.count - (storage[folderID]?.items.count ?? 0)
        storage[folderID] = listing
        touch(folderID)
    }

    /// Listings loaded from the disk become listed at `now` (the stream caught up on them); noted as no change.
    mutating func confirmLoaded(at now: ContinuousClock.Instant) {
        for folderID in storage.keys where storage[folderID]?.awaitingCatchUp == true {
            storage[folderID]?.awaitingCatchUp = false
            storage[folderID]?.fetchedAt = now
        }
    }

    /// A changed folder's listing as the tree on disk takes it: its items (nil: dropped, or stale, which is never
    /// kept) and when Box listed it.
    struct Change {
        let folderID: String
        let items: [BoxItem]?
        let fetchedAt: ContinuousClock.Instant
    }

    /// The changes noted since the last call, and the notes cleared. The items share their storage with the memory
    /// tree until it changes them (copy on write; the indexes are not shared, so a change copies the items only).
    mutating func takeChanges(at now: ContinuousClock.Instant) -> (droppedAll: Bool, changes: [Change]) {
        defer {
            changed = []
            droppedAll = false
        }
        return (droppedAll, changed.map { change(of: $0, at: now) })
    }

    /// The listing of `folderID` as the tree on disk takes it now.
    func change(of folderID: String, at now: ContinuousClock.Instant) -> Change {
        guard let listing = storage[folderID], !listing.isStale else {
            return Change(folderID: folderID, items: nil, fetchedAt: now)
        }
        return Change(folderID: folderID, items: listing.items, fetchedAt: listing.fetchedAt)
    }

    /// The cached folder ids, least recently used first.
    func leastRecentlyUsedFirst() -> [String] {
        lastUse.sorted { $0.value < $1.value }.map(\.key)
    }
}
