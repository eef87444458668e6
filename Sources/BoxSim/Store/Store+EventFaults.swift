import Foundation
import GRDB

/// Events lost or late on demand (`/_control/event_faults`, docs/BOXSIM.md "Event faults"): the stream itself
/// stays healthy, so a client sees nothing wrong, only changes it hears of late or never.
struct EventFaults: Sendable, Equatable {
    /// The next events recorded that are dropped (never in any stream, wake no long poll).
    var dropRemaining: Int64 = 0
    /// Each event recorded is in no page and wakes no long poll until this many milliseconds after it.
    var delayMilliseconds: Int64 = 0
    /// Share (0…1) of the events of a page that are sent again in the user's next page (`EventRedelivery`).
    var duplicateRate: Double = 0
    /// Share (0…1) of the events of a page held back to the end of the user's next page, after later events.
    var outOfOrderRate: Double = 0
    /// Events up to this position (every user's) are past Box's retention: in no page (`expire`).
    var expiredThrough: Int64 = 0

    var json: JSONValue {
        .object([("drop_remaining", .int(dropRemaining)), ("delay_ms", .int(delayMilliseconds)),
                 ("duplicate_rate", .double(duplicateRate)), ("out_of_order_rate", .double(outOfOrderRate)),
                 ("expired_through", .int(expiredThrough))])
    }
}

extension Store {
    /// What happens to an event being recorded.
    enum EventFate {
        case dropped
        /// Visible from this Unix millisecond (nil: at once).
        case recorded(visibleAt: Int64?)
    }

    func eventFaults() async throws -> EventFaults {
        try await database.read { db in try Self.eventFaults(db) }
    }

    /// Replaces the event faults in force (zeros clear them; events already delayed keep their time).
    func setEventFaults(_ faults: EventFaults) async throws {
        try await database.write { db in
            try db.execute(sql: """
                INSERT OR REPLACE INTO event_fault(id, drop_remaining, delay_ms, duplicate_rate, out_of_order_rate,
                                                   expired_through) VALUES (1, ?, ?, ?, ?, ?)
                """, arguments: [faults.dropRemaining, faults.delayMilliseconds, faults.duplicateRate,
                                  faults.outOfOrderRate, faults.expiredThrough])
        }
    }

    static func eventFaults(_ db: Database) throws -> EventFaults {
        guard let row = try Row.fetchOne(db, sql: """
            SELECT drop_remaining, delay_ms, duplicate_rate, out_of_order_rate, expired_through FROM event_fault
            """) else { return EventFaults() }
        return EventFaults(dropRemaining: row["drop_remaining"], delayMilliseconds: row["delay_ms"],
                           duplicateRate: row["duplicate_rate"], outOfOrderRate: row["out_of_order_rate"],
                           expiredThrough: row["expired_through"])
    }

    /// The latest position of any user's stream: what `expire` marks as past retention.
    func latestEventID() async throws -> Int64 {
        try await database.read { db in try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(id), 0) FROM event") ?? 0 }
    }

    /// Decides the fate of one event (inside the write that records it; a drop uses up one of the count).
    static func eventFate(_ db: Database) throws -> EventFate {
        let faults = try eventFaults(db)
        if faults.dropRemaining > 0 {
            try db.execute(sql: "UPDATE event_fault SET drop_remaining = drop_remaining - 1")
            return .dropped
        }
        return .recorded(visibleAt: faults.delayMilliseconds > 0 ? nowMilliseconds() + faults.delayMilliseconds : nil)
    }

    static func nowMilliseconds() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// The user's stream as far as a client may see it: every event up to the first one still delayed (later
    /// events wait behind it, so a client's position never passes an event it has not seen).
    static func visiblePosition(_ db: Database, userID: Int64) throws -> Int64 {
        if let held = try Int64.fetchOne(db, sql: """
            SELECT MIN(id) FROM event WHERE user_id = ? AND visible_at IS NOT NULL AND visible_at > ?
            """, arguments: [userID, nowMilliseconds()]) {
            return held - 1
        }
        return try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(id), 0) FROM event WHERE user_id = ?",
                                  arguments: [userID]) ?? 0
    }
}
