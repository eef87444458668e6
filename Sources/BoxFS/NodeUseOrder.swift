/// The files the kernel holds in the order it last looked them up, for the eviction under `node_cache_entries`
/// (see `InodeTable+NodeEviction`): a queue of (inode, use) with the oldest use first.
///
/// A look-up appends the inode with a new use number, which its node keeps; an entry whose node has a newer
/// number (looked up again since) or is gone is stale and skipped when taken. So recording and taking cost
/// constant time, with no search and no sort of a million nodes; stale entries are dropped once they
/// outnumber the live ones (amortised, as each rebuild follows the arrival of as many entries as it keeps).
struct NodeUseOrder {
    struct Use: Equatable {
        let inode: UInt64
        let number: UInt64
    }

    private var queue: [Use] = []
    /// Entries before this one were taken.
    private var head = 0
    private var clock: UInt64 = 0

    /// Entries not taken yet, stale ones included.
    var count: Int { queue.count - head }

    /// The kernel looked `inode` up now: answers the use number its node keeps.
    mutating func record(_ inode: UInt64) -> UInt64 {
        clock += 1
        queue.append(Use(inode: inode, number: clock))
        return clock
    }

    /// The oldest entry, taken out of the queue (stale or not: the caller checks it against its node).
    mutating func takeOldest() -> Use? {
        guard head < queue.count else { return nil }
        let use = queue[head]
        head += 1
        if head == queue.count {
            queue.removeAll(keepingCapacity: queue.capacity <= Self.floor)
            head = 0
        }
        return use
    }

    /// Builds the queue again from its live entries (`isLive`) once it holds more than twice `live` entries, or
    /// once most of its storage holds taken ones (never for a few thousand).
    mutating func compact(live: Int, isLive: (Use) -> Bool) {
        guard (count > Self.floor && count > 2 * live) || (head > Self.floor && head > queue.count / 2) else { return }
        queue = queue[head...].filter(isLive)
        head = 0
    }

    /// Smaller queues are never rebuilt.
    private static let floor = 4096
}
