import Synchronization

/// Box's user stream as Box serves it: "Box may return events more than once or out of chronological order.
/// Duplicate events can be identified by their event IDs" (developer.box.com, guides/events). With the
/// `duplicate_rate` / `out_of_order_rate` event faults, each event of a page is, at that rate, sent again at the end of
/// the user's next page (a duplicate), or held back from this page and sent at the end of the next one, after events
/// that came later (out of order; `next_stream_position` passes it meanwhile). The events owed are kept in memory per
/// user (a restart forgets them) and wake the long poll; events sent again are not duplicated or held again.
final class EventRedelivery: Sendable {
    private let owed = Mutex<[Int64: [EventRecord]]>([:])

    /// The events to send for `page` (oldest first, as stored): the page with `faults` applied, then those owed from
    /// the user's earlier pages.
    func deliver(_ page: [EventRecord], userID: Int64, faults: EventFaults) -> [EventRecord] {
        owed.withLock { owed in
            let earlier = owed.removeValue(forKey: userID) ?? []
            var sent: [EventRecord] = []
            var later: [EventRecord] = []
            for event in page {
                if Self.happens(faults.outOfOrderRate) {
                    later.append(event)
                    continue
                }
                sent.append(event)
                if Self.happens(faults.duplicateRate) { later.append(event) }
            }
            if !later.isEmpty { owed[userID] = later }
            return sent + earlier
        }
    }

    /// Whether the user is owed events (the long poll answers `new_change` then).
    func owes(userID: Int64) -> Bool { owed.withLock { !($0[userID]?.isEmpty ?? true) } }

    private static func happens(_ rate: Double) -> Bool { rate > 0 && Double.random(in: 0..<1) < rate }
}
