import BoxAPI

/// The cached folder listings of `InodeTable`, by Box folder id, with how many entries they hold in all and
/// when each was last used: what the eviction under `listing_cache_entries` needs (see `InodeTable+Eviction`).
///
/// Reads and in-place changes go through the subscript (`listings[id]?.upsert(item)` changes the listing where
/// it lies, no copy of its items), which keeps the entry count true whatever the change.
///
/// With `tracksChanges` (a mount that keeps the tree on disk, `DiskTree`), every folder whose listing is stored,
/// changed or dropped, by whatever path, is noted in `changed` (and a drop of all in `droppedAll`), so the disk copy
/// follows the memory tree: `FileSystem+DiskTree` takes the notes under the state lock and writes them off it.
///
/// The memory tree is then a cache of the disk's: an evicted listing (not stale) goes to `onDiskOnly`, kept in
/// `unwritten` until the next write if a change to it was not written yet, and the next use reads it back from the
/// disk instead of asking Box (`FileSystem+DiskTree`). What could make such a disk copy untrue forgets it: any change
/// to the folder's listing through this cache (the mount's own changes, an event dropping it) deletes it on disk
/// at the next write; an item an event names that no memory listing holds is noted in `touchedItems`, and the
/// next write deletes the disk-only listings that hold it (their old folder is known only to the disk). Every
/// such step moves `diskSerial`, so a read of the disk that raced one is not installed.
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
    /// Listings the disk holds and memory does not (evicted, or not read yet since the mount started), by folder.
    /// A hint: the disk may have lost one since (a write that failed, a large listing paced); a read that finds
    /// none lists from Box.
    private(set) var onDiskOnly: [String: DiskOnly] = [:]
    /// Evicted listings whose last change the next write carries (then they are on the disk only).
    private var unwritten: [String: InodeTable.Listing] = [:]
    /// Items named by events while disk-only listings existed, no memory listing holding them (see above).
    private(set) var touchedItems: Set<String> = []
    /// Moves at each step that may make a disk-only listing untrue (see above).
    private(set) var diskSerial: UInt64 = 0

    /// A listing kept on the disk only: when Box listed it, and whether it waits for the stream's first catch-up.
    struct DiskOnly: Equatable {
        var fetchedAt: ContinuousClock.Instant
        var awaitingCatchUp: Bool
    }

    var count: Int { storage.count }
    var keys: Dictionary<String, InodeTable.Listing>.Keys { storage.keys }
    var all: [String: InodeTable.Listing] { storage }

    subscript(folderID: String) -> InodeTable.Listing? {
        get { storage[folderID] }
        _modify {
            let before = storage[folderID]?.items.count ?? 0
            if tracksChanges {
                changed.insert(folderID)
                forgetDiskCopy(folderID)
            }
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

    /// Drops the listing of `folderID`, from memory and (at the next write) from the disk.
    @discardableResult
    mutating func removeValue(forKey folderID: String) -> InodeTable.Listing? {
        if tracksChanges { forgetDiskCopy(folderID) }
        guard let listing = storage.removeValue(forKey: folderID) else { return nil }
        if tracksChanges { changed.insert(folderID) }
        entryCount -= listing.items.count
        lastUse[folderID] = nil
        return listing
    }

    /// Drops the listing of `folderID` from memory; the disk keeps it (`onDiskOnly`; a change not written yet is
    /// written from `unwritten`), unless it is stale. Answers how many entries left memory.
    mutating func evict(_ folderID: String) -> Int {
        guard tracksChanges, let listing = storage[folderID], !listing.isStale else {
            return removeValue(forKey: folderID)?.items.count ?? 0
        }
        if changed.contains(folderID) { unwritten[folderID] = listing }
        storage[folderID] = nil
        entryCount -= listing.items.count
        lastUse[folderID] = nil
        onDiskOnly[folderID] = DiskOnly(fetchedAt: listing.fetchedAt, awaitingCatchUp: listing.awaitingCatchUp)
        return listing.items.count
    }

    mutating func removeAll() {
        storage = [:]
        lastUse = [:]
        entryCount = 0
        if tracksChanges {
            changed = []
            droppedAll = true
            onDiskOnly = [:]
            unwritten = [:]
            touchedItems = []
            diskSerial += 1
        }
    }

    /// The disk's copy of `folderID`'s listing can no longer be trusted: it is deleted at the next write.
    mutating func forgetDiskCopy(_ folderID: String) {
        guard onDiskOnly.removeValue(forKey: folderID) != nil else { return }
        unwritten[folderID] = nil
        changed.insert(folderID)
        diskSerial += 1
    }

    /// Every disk-only listing can no longer be trusted (`boxfs refresh -r`: which of them lie below is not known).
    mutating func forgetAllDiskCopies() {
        for folderID in onDiskOnly.keys { forgetDiskCopy(folderID) }
    }

    /// An event named `itemID`, which no memory listing holds: a disk-only listing may (see above).
    mutating func noteTouched(itemID: String) {
        guard tracksChanges, !onDiskOnly.isEmpty else { return }
        touchedItems.insert(itemID)
        diskSerial += 1
    }

    /// The disk holds the listing of `folderID` (read at the mount's start; not in memory yet).
    mutating func noteOnDisk(_ folderID: String, _ entry: DiskOnly) {
        guard storage[folderID] == nil else { return }
        onDiskOnly[folderID] = entry
    }

    /// Puts a listing read back from the disk in memory, unless something that could make it untrue happened since
    /// the read began (`diskSerial` moved) or memory has one again. Answers whether it was put in.
    mutating func restore(_ listing: InodeTable.Listing, folderID: String, serialAtRead: UInt64) -> Bool {
        guard diskSerial == serialAtRead, storage[folderID] == nil, onDiskOnly.removeValue(forKey: folderID) != nil
        else { return false }
        load(listing, folderID: folderID)
        return true
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
        for folderID in onDiskOnly.keys where onDiskOnly[folderID]?.awaitingCatchUp == true {
            onDiskOnly[folderID] = DiskOnly(fetchedAt: now, awaitingCatchUp: false)
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
    mutating func takeChanges(at now: ContinuousClock.Instant) -> TakenChanges {
        defer {
            changed = []
            droppedAll = false
            touchedItems = []
            unwritten = [:]
        }
        return TakenChanges(
            droppedAll: droppedAll, changes: changed.map { change(of: $0, at: now) }, touchedItems: touchedItems,
            diskOnly: touchedItems.isEmpty ? [] : Set(onDiskOnly.keys), serial: diskSerial)
    }

    /// What `takeChanges` hands the tree on disk.
    struct TakenChanges {
        var droppedAll: Bool
        var changes: [Change]
        /// Items events named that no memory listing held, and the disk-only folders then: the disk deletes those
        /// of them that hold such an item.
        var touchedItems: Set<String>
        var diskOnly: Set<String>
        /// `diskSerial` when taken.
        var serial: UInt64
    }

    /// The listing of `folderID` as the tree on disk takes it now.
    func change(of folderID: String, at now: ContinuousClock.Instant) -> Change {
        guard let listing = storage[folderID] ?? unwritten[folderID], !listing.isStale else {
            return Change(folderID: folderID, items: nil, fetchedAt: now)
        }
        return Change(folderID: folderID, items: listing.items, fetchedAt: listing.fetchedAt)
    }

    /// The cached folder ids, least recently used first.
    func leastRecentlyUsedFirst() -> [String] {
        lastUse.sorted { $0.value < $1.value }.map(\.key)
    }
}
