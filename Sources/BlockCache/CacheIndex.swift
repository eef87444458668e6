/// The in-memory picture of what is on disk: every block's size and recency, and the byte
/// accounting that keeps the cache within its capacity. A pure value type: it decides, the
/// `BlockCache` shell performs the file operations it returns.
///
/// INVARIANT: `usedBytes + reservedBytes <= capacity`. `usedBytes` counts committed block files
/// (header + data); `reservedBytes` counts block files being written to the temp folder.
///
/// Pinned files (`pinnedFiles`, escaped ids) are a class apart: their blocks are kept in a list of their own that
/// no eviction ever looks at, counted in `pinnedBytes` against `pinCapacity` (their own budget, nil: none here,
/// the disk's free space decides), never against `capacity`. Pinning a file moves its blocks there; unpinning
/// moves them back as the most recently used ordinary blocks.
struct CacheIndex {
    struct Entry: Equatable {
        let size: Int64
        /// Changes every time the key is (re)written, so a reader that found a bad file only
        /// deletes that file, not a fresh one renamed over it meanwhile.
        let generation: UInt64
    }

    /// What a reservation evicted (already removed from the index; the shell deletes the files)
    /// and whether the space was granted.
    struct Reservation {
        var evicted: [BlockKey] = []
        var granted = false
        /// Reserved in the pinned class (released with `release(_:pinned:)` the same way).
        var pinned = false
    }

    let capacity: Int64
    /// Bytes pinned blocks may take (nil: no budget of their own; the disk's free space decides).
    let pinCapacity: Int64?
    private var lru = LRUList<BlockKey, Entry>()
    /// Blocks of pinned files: never evicted.
    private var pinnedList = LRUList<BlockKey, Entry>()
    /// Escaped ids of pinned files.
    private(set) var pinnedFiles: Set<String> = []
    private(set) var pinnedBytes: Int64 = 0
    private(set) var pinnedReserved: Int64 = 0
    private var keysByFile: [String: Set<BlockKey>] = [:]
    /// Versions (`BlockKey.versionName`) whose cached blocks were verified whole; see `BlockCache+Verified`.
    var verified: Set<String> = []
    private(set) var usedBytes: Int64 = 0
    private(set) var reservedBytes: Int64 = 0
    private var nextGeneration: UInt64 = 1

    init(capacity: Int64, pinCapacity: Int64? = nil) {
        self.capacity = capacity
        self.pinCapacity = pinCapacity
    }

    var count: Int { lru.count + pinnedList.count }
    /// Ordinary (evictable) keys from least to most recently used.
    var keysOldestFirst: [BlockKey] { lru.keysOldestFirst }

    func entry(_ key: BlockKey) -> Entry? { lru.value(for: key) ?? pinnedList.value(for: key) }

    /// Looks a block up and marks it most recently used.
    mutating func touch(_ key: BlockKey) -> Entry? { lru.touch(key) ?? pinnedList.touch(key) }

    func isPinned(file: String) -> Bool { pinnedFiles.contains(file) }

    /// Records a block file as present and most recently used (in the pinned class if its file is pinned);
    /// returns its new entry.
    @discardableResult
    mutating func insert(_ key: BlockKey, size: Int64) -> Entry {
        let entry = Entry(size: size, generation: nextGeneration)
        nextGeneration += 1
        remove(key)
        if pinnedFiles.contains(key.file) {
            pinnedList.insert(key, entry)
            pinnedBytes += size
        } else {
            lru.insert(key, entry)
            usedBytes += size
        }
        keysByFile[key.file, default: []].insert(key)
        return entry
    }

    @discardableResult
    mutating func remove(_ key: BlockKey) -> Entry? {
        if let entry = lru.remove(key) {
            usedBytes -= entry.size
            forgetKey(key)
            return entry
        }
        guard let entry = pinnedList.remove(key) else { return nil }
        pinnedBytes -= entry.size
        forgetKey(key)
        return entry
    }

    private mutating func forgetKey(_ key: BlockKey) {
        keysByFile[key.file]?.remove(key)
        if keysByFile[key.file]?.isEmpty == true { keysByFile[key.file] = nil }
    }

    /// Pins the escaped file: its blocks, present and future, leave the ordinary budget for the pinned one and
    /// are never evicted. Returns whether it was not pinned before.
    @discardableResult
    mutating func pin(file: String) -> Bool {
        guard pinnedFiles.insert(file).inserted else { return false }
        for key in keysByFile[file] ?? [] {
            guard let entry = lru.remove(key) else { continue }
            usedBytes -= entry.size
            pinnedList.insert(key, entry)
            pinnedBytes += entry.size
        }
        return true
    }

    /// Unpins the escaped file: its blocks become the most recently used ordinary blocks, and older ordinary
    /// blocks are evicted to fit `capacity` again; returns the evicted keys (nil: the file was not pinned).
    mutating func unpin(file: String) -> [BlockKey]? {
        guard pinnedFiles.remove(file) != nil else { return nil }
        for key in (keysByFile[file] ?? []).sorted(by: { $0.block < $1.block }) {
            guard let entry = pinnedList.remove(key) else { continue }
            pinnedBytes -= entry.size
            lru.insert(key, entry)
            usedBytes += entry.size
        }
        return evictToCapacity()
    }

    /// Bytes of the escaped file's blocks of `version` in the cache.
    func bytes(file: String, version: String) -> Int64 {
        (keysByFile[file] ?? []).filter { $0.version == version }.reduce(0) { $0 + (entry($1)?.size ?? 0) }
    }

    /// Removes `key` only if it still is the write a reader saw (`generation`).
    mutating func remove(_ key: BlockKey, generation: UInt64) -> Bool {
        guard lru.value(for: key)?.generation == generation else { return false }
        remove(key)
        return true
    }

    /// Whether any block of the escaped file id and version is cached.
    func hasBlocks(file: String, version: String) -> Bool {
        keysByFile[file]?.contains { $0.version == version } ?? false
    }

    /// Forgets the verified markers of every version of the escaped file id; returns their names.
    mutating func unmarkVerified(file: String) -> [String] {
        let names = verified.filter { $0.hasPrefix(file + "~") }
        verified.subtract(names)
        return Array(names)
    }

    /// Removes every block of the escaped file id; returns the removed keys.
    mutating func removeFile(_ file: String) -> [BlockKey] {
        let keys = Array(keysByFile[file] ?? [])
        keys.forEach { remove($0) }
        return keys
    }

    /// Removes the blocks of every other version of `key`'s file: once a newer version is being
    /// cached, the older one can never be asked for again by an up-to-date reader.
    mutating func removeOtherVersions(of key: BlockKey) -> [BlockKey] {
        let stale = (keysByFile[key.file] ?? []).filter { $0.version != key.version }
        stale.forEach { remove($0) }
        return Array(stale)
    }

    /// Reserves `size` bytes for a block of `key`'s file about to be written: for a pinned file, within
    /// `pinCapacity` (nothing is evicted for it; refused past the budget); else as `reserve(_:)`.
    mutating func reserve(_ size: Int64, for key: BlockKey) -> Reservation {
        guard pinnedFiles.contains(key.file) else { return reserve(size) }
        var reservation = Reservation()
        reservation.pinned = true
        if let pinCapacity, pinnedBytes + pinnedReserved + size - (entry(key)?.size ?? 0) > pinCapacity { return reservation }
        pinnedReserved += size
        reservation.granted = true
        return reservation
    }

    /// Gives back a reservation made by `reserve(_:for:)`.
    mutating func release(_ size: Int64, pinned: Bool) {
        if pinned { pinnedReserved -= size } else { reservedBytes -= size }
    }

    /// Reserves `size` bytes for a block about to be written, evicting least recently used blocks
    /// as needed. Refused when `size` alone exceeds the capacity or in-flight writes hold the rest.
    mutating func reserve(_ size: Int64) -> Reservation {
        var reservation = Reservation()
        guard size <= capacity else { return reservation }
        while usedBytes + reservedBytes + size > capacity, let oldest = lru.leastRecent {
            remove(oldest.key)
            reservation.evicted.append(oldest.key)
        }
        guard usedBytes + reservedBytes + size <= capacity else { return reservation }
        reservedBytes += size
        reservation.granted = true
        return reservation
    }

    /// Gives back a reservation (before committing the block with `insert`, or after a failed write).
    mutating func release(_ size: Int64) {
        reservedBytes -= size
    }

    /// Evicts least recently used blocks until at least `bytes` of block files are freed, or the
    /// cache is empty; returns the evicted keys and the bytes they held.
    mutating func evictOldest(atLeast bytes: Int64) -> (keys: [BlockKey], freed: Int64) {
        var evicted: [BlockKey] = []
        var freed: Int64 = 0
        while freed < bytes, let oldest = lru.leastRecent {
            remove(oldest.key)
            evicted.append(oldest.key)
            freed += oldest.value.size
        }
        return (evicted, freed)
    }

    /// Evicts least recently used blocks until `usedBytes` fits (after start-up with a smaller
    /// capacity than last time); returns the evicted keys.
    mutating func evictToCapacity() -> [BlockKey] {
        var evicted: [BlockKey] = []
        while usedBytes + reservedBytes > capacity, let oldest = lru.leastRecent {
            remove(oldest.key)
            evicted.append(oldest.key)
        }
        return evicted
    }
}
