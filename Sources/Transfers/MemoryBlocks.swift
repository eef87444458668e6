import Foundation

/// Recently fetched blocks kept in memory within `capacity` bytes, for readers that have not asked
/// for them yet.
///
/// Eviction order: blocks already handed to a reader go first (oldest hand-out first), then blocks
/// nobody has read yet (oldest fetch first). Read-ahead exists to be read once: the kernel keeps
/// what it was given in its page cache, so a block that was read is rarely asked for again, while
/// evicting an unread one means fetching it a second time. (Plain LRU did the opposite for a
/// stream: every read made its block the most recent and pushed out the read-ahead ahead of it.)
/// Read blocks are also kept within a quarter of the capacity (for a second reader close behind),
/// so their buffers go back to the pool soon and are reused while still mapped.
/// The bound is what keeps the daemon's memory flat while several large files stream at once.
struct MemoryBlocks {
    struct Key: Hashable {
        let fileID: String
        let version: String
        let index: Int64
    }

    private struct Entry {
        var data: Data
        var tick: UInt64
        var wasRead: Bool
    }

    private var blocks: [Key: Entry] = [:]
    private var tick: UInt64 = 0
    private(set) var bytes = 0
    /// Bytes of blocks already handed to a reader.
    private(set) var readBytes = 0
    let capacity: Int
    var readCapacity: Int { capacity / 4 }

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The block, which now counts as read.
    mutating func get(_ key: Key) -> Data? {
        guard var entry = blocks[key] else { return nil }
        if !entry.wasRead {
            tick += 1
            entry.tick = tick
            entry.wasRead = true
            blocks[key] = entry
            readBytes += entry.data.count
            evict(until: { $0.readBytes <= $0.readCapacity }, keeping: key)
        }
        return entry.data
    }

    /// Whether the block is held, without marking it read.
    func contains(_ key: Key) -> Bool { blocks[key] != nil }

    /// Adds a block; `wasRead` when it is being handed to a reader right away.
    mutating func put(_ key: Key, _ data: Data, wasRead: Bool = false) {
        tick += 1
        if let old = blocks.updateValue(Entry(data: data, tick: tick, wasRead: wasRead), forKey: key) {
            bytes -= old.data.count
            if old.wasRead { readBytes -= old.data.count }
        }
        bytes += data.count
        if wasRead { readBytes += data.count }
        evict(until: { $0.bytes <= $0.capacity && $0.readBytes <= $0.readCapacity }, keeping: key)
    }

    mutating func remove(fileID: String) {
        for key in blocks.keys where key.fileID == fileID { drop(key) }
    }

    /// Evicts (oldest read first, then oldest unread) until `done`, never `kept` (the block just added
    /// or read), and only read blocks while just the read budget is exceeded.
    private mutating func evict(until done: (MemoryBlocks) -> Bool, keeping kept: Key) {
        while !done(self), let victim = nextVictim(excluding: kept, onlyRead: bytes <= capacity) {
            drop(victim)
        }
    }

    private mutating func drop(_ key: Key) {
        guard let entry = blocks.removeValue(forKey: key) else { return }
        bytes -= entry.data.count
        if entry.wasRead { readBytes -= entry.data.count }
    }

    /// The oldest read block, else (unless `onlyRead`) the oldest unread one.
    private func nextVictim(excluding kept: Key, onlyRead: Bool) -> Key? {
        var best: (key: Key, wasRead: Bool, tick: UInt64)?
        for (key, entry) in blocks where key != kept && (entry.wasRead || !onlyRead) {
            guard let current = best else {
                best = (key, entry.wasRead, entry.tick)
                continue
            }
            if entry.wasRead != current.wasRead ? entry.wasRead : entry.tick < current.tick {
                best = (key, entry.wasRead, entry.tick)
            }
        }
        return best?.key
    }
}
