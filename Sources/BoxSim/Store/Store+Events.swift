import GRDB

/// One entry of a user's event stream.
struct EventRecord: Codable, FetchableRecord, Sendable {
    var id: Int64
    var eventID: String
    var userID: Int64
    var eventType: String
    var itemID: Int64?
    var createdAt: Int64
    /// Who made the event when not the stream's user (a collaborator's change in a shared folder).
    var actorID: Int64?

    enum CodingKeys: String, CodingKey {
        case id
        case eventID = "event_id", userID = "user_id", eventType = "event_type", itemID = "item_id"
        case createdAt = "created_at", actorID = "actor_id"
    }
}

/// A page of events and the stream position to continue from.
struct EventPage: Sendable {
    var events: [EventRecord]
    var next: Int64
}

extension Store {
    /// The user's latest stream position a client may see (0 when there are no events; delayed events and those
    /// behind them not yet: `visiblePosition`).
    func latestStreamPosition(userID: Int64) async throws -> Int64 {
        try await database.read { db in try Self.visiblePosition(db, userID: userID) }
    }

    /// The user's events after `position`, oldest first, leaving out `excludedTypes` and events past retention
    /// (`EventFaults.expiredThrough`). When the page is not full, `next` is the user's latest position, so skipped
    /// events are not scanned again.
    func events(userID: Int64, after position: Int64, limit: Int, excludedTypes: [String] = []) async throws
        -> EventPage {
        try await database.read { db in
            let placeholders = excludedTypes.map { _ in "?" }.joined(separator: ",")
            let exclusion = excludedTypes.isEmpty ? "" : "AND event_type NOT IN (\(placeholders))"
            let visible = try Self.visiblePosition(db, userID: userID)
            // Events past retention are gone: a position before them reads on from the oldest one kept, as Box does.
            let expired = try Self.eventFaults(db).expiredThrough
            let kept = max(position, expired)
            let arguments = StatementArguments([userID, kept, visible]) + StatementArguments(excludedTypes)
                + StatementArguments([limit])
            let events = try EventRecord.fetchAll(db, sql: """
                SELECT id, event_id, user_id, event_type, item_id, created_at, actor_id FROM event
                WHERE user_id = ? AND id > ? AND id <= ? \(exclusion) ORDER BY id LIMIT ?
                """, arguments: arguments)
            let next = events.count == limit ? events.last!.id : max(position, visible)
            return EventPage(events: events, next: next)
        }
    }

    /// Events of every user of the enterprise after `position`, oldest first, optionally only of `types`
    /// and created within `[createdAfter, createdBefore]`.
    func enterpriseEvents(enterpriseID: Int64, after position: Int64, limit: Int, types: [String]?,
                          createdAfter: Int64?, createdBefore: Int64?) async throws -> EventPage {
        try await database.read { db in
            // One row per event: the actor's (events of shared items are copied into every viewer's stream).
            var conditions = ["event.id > ?", "user.enterprise_id = ?",
                              "(event.actor_id IS NULL OR event.actor_id = event.user_id)"]
            var arguments = StatementArguments([position, enterpriseID])
            if let types {
                conditions.append("event.event_type IN (\(types.map { _ in "?" }.joined(separator: ",")))")
                arguments += StatementArguments(types)
            }
            if let createdAfter {
                conditions.append("event.created_at >= ?")
                arguments += [createdAfter]
            }
            if let createdBefore {
                conditions.append("event.created_at <= ?")
                arguments += [createdBefore]
            }
            arguments += [limit]
            let events = try EventRecord.fetchAll(db, sql: """
                SELECT event.id, event.event_id, event.user_id, event.event_type, event.item_id, event.created_at, event.actor_id
                FROM event JOIN user ON user.id = event.user_id
                WHERE \(conditions.joined(separator: " AND ")) ORDER BY event.id LIMIT ?
                """, arguments: arguments)
            let latest = try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(id), 0) FROM event") ?? 0
            return EventPage(events: events, next: events.count == limit ? events.last!.id : max(position, latest))
        }
    }

    /// The enterprise stream's latest position (every user's events share one numbering).
    func latestEnterprisePosition() async throws -> Int64 {
        try await database.read { db in try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(id), 0) FROM event") ?? 0 }
    }

    /// Appends an event that no other write causes (a download).
    func recordEvent(type: String, itemID: Int64, userID: Int64) async throws {
        try await database.write { db in try Self.recordEvent(db, type: type, itemID: itemID, userID: userID) }
    }
}
