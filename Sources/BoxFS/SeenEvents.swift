import BoxAPI

/// The event ids the mount applied lately, so an event Box sends again is skipped. Box says of its streams: "Box may
/// return events more than once or out of chronological order. Duplicate events can be identified by their event
/// IDs" (developer.box.com, guides/events). A duplicate applied again would do no harm to what the mount shows (an
/// event only drops cached listings, and an item older than what the tree holds is ignored: `InodeTable.isOlder`),
/// but each costs listings fetched again and names the kernel forgets. Events out of order are left to that same
/// rule. A pure value, kept by the event follower's one task.
struct SeenEvents {
    /// How many ids are remembered: far more than Box sends again (its duplicates come within a few pages).
    let capacity: Int
    private var ids: Set<String> = []
    private var order: [String] = []
    private var oldest = 0

    init(capacity: Int = 8192) { self.capacity = capacity }

    /// `events` without those applied before (or twice in `events`), in their order; each id kept is remembered.
    /// An event without an id is always kept.
    mutating func unseen(_ events: [BoxEvent]) -> [BoxEvent] {
        events.filter { event in
            guard let id = event.eventID else { return true }
            return remember(id)
        }
    }

    /// Remembers `id`; false when it was remembered already.
    private mutating func remember(_ id: String) -> Bool {
        guard ids.insert(id).inserted else { return false }
        if order.count < capacity {
            order.append(id)
        } else {
            ids.remove(order[oldest])
            order[oldest] = id
            oldest = (oldest + 1) % capacity
        }
        return true
    }
}
