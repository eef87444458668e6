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
///
/// Unread blocks are evicted only past `hardCapacity` (four times `capacity`): evicting one means fetching
/// it again, and the store keeps read-ahead within a share of `capacity` (`BlockStore.aheadBudget`), so
/// unread blocks beyond `capacity` are only what readers are reading now (each reader's block read in part,
/// the kernel's reads in flight), bounded by the number of readers. The hard bound is for readers that
/// leave blocks half read and never come back.
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
        /// Bytes of it handed to readers so far (`consume`).
        var consumed = 0
    }

    private var blocks: [Key: Entry] = [:]
    private var tick: UInt64 = 0
    private(set) var bytes = 0
    /// Bytes of blocks already handed to a reader.
    private(set) var readBytes = 0
    let capacity: Int
    var readCapacity: Int { capacity / 4 }
    var hardCapacity: Int { capacity * 4 }
    /// Bytes of blocks nobody has read yet (read-ahead waiting for its reader).
    var unreadBytes: Int { bytes - readBytes }

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

    /// The block, of which a reader takes `bytes`: it counts as read once its readers took as many bytes as
    /// it holds. The kernel reads a 1 MiB block in pieces, out of order: evicting it after the piece at its
    /// end would fetch it again for a piece before.
    mutating func consume(_ key: Key, bytes: Int) -> Data? {
        guard var entry = blocks[key] else { return nil }
        entry.consumed = bytes >= entry.data.count - entry.consumed ? entry.data.count : entry.consumed + bytes
        guard entry.consumed >= entry.data.count else {
            blocks[key] = entry
            return entry.data
        }
        blocks[key] = entry
        return get(key)
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

    /// Counts every held block of this file version from block `index` on as read, so it goes first: its
    /// reader is gone (closed the file).
    mutating func markRead(fileID: String, version: String, from index: Int64) {
        for key in blocks.keys where key.fileID == fileID && key.version == version && key.index >= index {
            _ = get(key)
        }
    }

    mutating func remove(fileID: String) {
        for key in blocks.keys where key.fileID == fileID { drop(key) }
    }

    /// Evicts (oldest read first, then oldest unread) until `done`, never `kept` (the block just added
    /// or read), and unread blocks only beyond `hardCapacity`.
    private mutating func evict(until done: (MemoryBlocks) -> Bool, keeping kept: Key) {
        while !done(self), let victim = nextVictim(excluding: kept, onlyRead: bytes <= hardCapacity) {
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
