/// The cached folder listings of `InodeTable`, by Box folder id, with how many entries they hold in all and
/// when each was last used: what the eviction under `listing_cache_entries` needs (see `InodeTable+Eviction`).
///
/// Reads and in-place changes go through the subscript (`listings[id]?.upsert(item)` changes the listing where
/// it lies, no copy of its items), which keeps the entry count true whatever the change.
struct ListingCache {
    private var storage: [String: InodeTable.Listing] = [:]
    /// The use counter's value at each listing's last store or use: the smallest is the least recently used.
    private var lastUse: [String: UInt64] = [:]
    private var clock: UInt64 = 0
    /// Entries of every cached listing.
    private(set) var entryCount = 0

    var count: Int { storage.count }
    var keys: Dictionary<String, InodeTable.Listing>.Keys { storage.keys }
    var all: [String: InodeTable.Listing] { storage }

    subscript(folderID: String) -> InodeTable.Listing? {
        get { storage[folderID] }
        _modify {
            let before = storage[folderID]?.items.count ?? 0
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
        entryCount -= listing.items.count
        lastUse[folderID] = nil
        return listing
    }

    mutating func removeAll() {
        storage = [:]
        lastUse = [:]
        entryCount = 0
    }

    /// The cached folder ids, least recently used first.
    func leastRecentlyUsedFirst() -> [String] {
        lastUse.sorted { $0.value < $1.value }.map(\.key)
    }
}
