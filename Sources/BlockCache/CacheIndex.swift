/// The in-memory picture of what is on disk: every block's size and recency, and the byte
/// accounting that keeps the cache within its capacity. A pure value type: it decides, the
/// `BlockCache` shell performs the file operations it returns.
///
/// INVARIANT: `usedBytes + reservedBytes <= capacity`. `usedBytes` counts committed block files
/// (header + data); `reservedBytes` counts block files being written to the temp folder.
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
    }

    let capacity: Int64
    private var lru = LRUList<BlockKey, Entry>()
    private var keysByFile: [String: Set<BlockKey>] = [:]
    /// Versions (`BlockKey.versionName`) whose cached blocks were verified whole; see `BlockCache+Verified`.
    var verified: Set<String> = []
    private(set) var usedBytes: Int64 = 0
    private(set) var reservedBytes: Int64 = 0
    private var nextGeneration: UInt64 = 1

    init(capacity: Int64) {
        self.capacity = capacity
    }

    var count: Int { lru.count }
    var keysOldestFirst: [BlockKey] { lru.keysOldestFirst }

    func entry(_ key: BlockKey) -> Entry? { lru.value(for: key) }

    /// Looks a block up and marks it most recently used.
    mutating func touch(_ key: BlockKey) -> Entry? { lru.touch(key) }

    /// Records a block file as present and most recently used; returns its new entry.
    @discardableResult
    mutating func insert(_ key: BlockKey, size: Int64) -> Entry {
        let entry = Entry(size: size, generation: nextGeneration)
        nextGeneration += 1
        if let replaced = lru.insert(key, entry) { usedBytes -= replaced.size }
        usedBytes += size
        keysByFile[key.file, default: []].insert(key)
        return entry
    }

    @discardableResult
    mutating func remove(_ key: BlockKey) -> Entry? {
        guard let entry = lru.remove(key) else { return nil }
        usedBytes -= entry.size
        keysByFile[key.file]?.remove(key)
        if keysByFile[key.file]?.isEmpty == true { keysByFile[key.file] = nil }
        return entry
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
