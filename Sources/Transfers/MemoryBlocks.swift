import Foundation

/// Recently fetched blocks kept in memory, least recently used evicted first, within `capacity` bytes.
///
/// Read-ahead lands here (and on disk when the disk cache is on) until the reader asks for it; the
/// bound is what keeps the daemon's memory flat while several large files stream at once.
struct MemoryBlocks {
    struct Key: Hashable {
        let fileID: String
        let version: String
        let index: Int64
    }

    private var blocks: [Key: (data: Data, tick: UInt64)] = [:]
    private var tick: UInt64 = 0
    private(set) var bytes = 0
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    mutating func get(_ key: Key) -> Data? {
        guard let entry = blocks[key] else { return nil }
        tick += 1
        blocks[key] = (entry.data, tick)
        return entry.data
    }

    /// Whether the block is held, without making it more recently used.
    func contains(_ key: Key) -> Bool { blocks[key] != nil }

    mutating func put(_ key: Key, _ data: Data) {
        tick += 1
        if let old = blocks.updateValue((data, tick), forKey: key) { bytes -= old.data.count }
        bytes += data.count
        while bytes > capacity, let oldest = blocks.min(by: { $0.value.tick < $1.value.tick }) {
            bytes -= oldest.value.data.count
            blocks[oldest.key] = nil
        }
    }

    mutating func remove(fileID: String) {
        for key in blocks.keys where key.fileID == fileID {
            bytes -= blocks[key]!.data.count
            blocks[key] = nil
        }
    }
}
