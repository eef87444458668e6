import GRDB

/// One entry of a user's event stream.
struct EventRecord: Codable, FetchableRecord, Sendable {
    var id: Int64
    var eventID: String
    var userID: Int64
    var eventType: String
    var itemID: Int64?
    var createdAt: Int64

    enum CodingKeys: String, CodingKey {
        case id
        case eventID = "event_id", userID = "user_id", eventType = "event_type", itemID = "item_id"
        case createdAt = "created_at"
    }
}

extension Store {
    /// The user's latest stream position (0 when there are no events).
    func latestStreamPosition(userID: Int64) async throws -> Int64 {
        try await database.read { db in
            try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(id), 0) FROM event WHERE user_id = ?", arguments: [userID]) ?? 0
        }
    }

    /// Events after `position`, oldest first.
    func events(userID: Int64, after position: Int64, limit: Int) async throws -> [EventRecord] {
        try await database.read { db in
            try EventRecord.fetchAll(db, sql: """
                SELECT id, event_id, user_id, event_type, item_id, created_at FROM event
                WHERE user_id = ? AND id > ? ORDER BY id LIMIT ?
                """, arguments: [userID, position, limit])
        }
    }
}
