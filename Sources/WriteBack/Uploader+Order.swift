extension Uploader {
    /// The order waiting uploads go in: oldest entry first (the order files were written in), except that a file a
    /// user opened while it waited goes before all of them, the latest opened first. It is what a user waits on
    /// now (a file they look at, or are about to hand to someone), while the others are background work.

    /// The file of entry `id` was opened while its upload waits: its attempt goes next, before the other waiting
    /// ones (those already running are not stopped). A queued attempt moves to the front; one that is not due yet
    /// (its write-back delay, a backoff) goes first when it is, and first when `retryNow` sends every waiting one.
    public func prioritize(_ id: Int64) {
        guard machines[id] != nil else { return }
        urgent.removeAll { $0 == id }
        urgent.insert(id, at: 0)
        logger.debug("opened while waiting: sent next", metadata: ["entry": "\(id)"])
    }

    /// The index in `queued` of the attempt to start next: the first urgent one, else the first queued, never one
    /// held (see `hold`).
    func nextQueued() -> Int? {
        for id in urgent {
            if let index = queued.firstIndex(where: { $0.id == id && !held.contains(id) }) { return index }
        }
        return queued.firstIndex { !held.contains($0.id) }
    }

    /// `ids` in sending order: the urgent ones first (latest opened first), then oldest entry first.
    func sendingOrder(_ ids: some Sequence<Int64>) -> [Int64] {
        let rank = Dictionary(urgent.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: min)
        return ids.sorted { first, second in
            switch (rank[first], rank[second]) {
            case let (a?, b?): a < b
            case (.some, nil): true
            case (nil, .some): false
            case (nil, nil): first < second
            }
        }
    }
}
