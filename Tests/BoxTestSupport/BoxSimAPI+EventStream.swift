import Foundation

/// Event faults that make boxsim's user stream what Box serves: events sent twice or out of order, and stream
/// positions past Box's retention (docs/BOXSIM.md "Event faults").
extension BoxSimAPI {
    /// Events sent twice (`duplicateRate`) or late, after later ones (`outOfOrderRate`), each a share 0…1; nil leaves
    /// that fault as it is.
    public func setEventStreamFaults(duplicateRate: Double? = nil, outOfOrderRate: Double? = nil) throws {
        var body: [String: Any] = [:]
        if let duplicateRate { body["duplicate_rate"] = duplicateRate }
        if let outOfOrderRate { body["out_of_order_rate"] = outOfOrderRate }
        try call("POST", "/_control/event_faults", json: body)
    }

    /// Every event recorded so far is past Box's retention: a stream position before now reads on from the next event.
    public func expireEvents() throws {
        try call("POST", "/_control/event_faults", json: ["expire": true])
    }
}
