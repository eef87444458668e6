/// When each file's latest fetched block arrived, as a count of arrivals (a clock no two arrivals share), so a
/// reader can ask under the store's lock whether any block of a file arrived since it looked at the disk cache.
///
/// Why: a block's way is in flight → queued for the disk → on disk, and memory may let go of it at any point
/// after it arrived. A reader that looked at the disk (outside the store's lock) and then claims the block under
/// the lock could miss a block that arrived, was written and left memory in between, and fetch it again.
///
/// Bounded: only the files with the latest arrivals are listed; the latest time among those dropped is kept, and a
/// file not listed counts as arrived then (at worst a reader looks once more).
struct ArrivalTimes {
    private(set) var clock: UInt64 = 0
    private var latest: [BlockStore.FileVersion: UInt64] = [:]
    private var forgotten: UInt64 = 0
    let capacity: Int

    init(capacity: Int = 1024) {
        self.capacity = capacity
    }

    mutating func record(_ file: BlockStore.FileVersion) {
        clock += 1
        latest[file] = clock
        guard latest.count > capacity * 2 else { return }
        let dropped = latest.sorted { $0.value > $1.value }.dropFirst(capacity)
        for (key, time) in dropped {
            latest[key] = nil
            forgotten = max(forgotten, time)
        }
    }

    /// Whether a block of `file` arrived after `time` (a `clock` reading).
    func arrived(_ file: BlockStore.FileVersion, since time: UInt64) -> Bool {
        (latest[file] ?? forgotten) > time
    }
}
