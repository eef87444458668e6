import Foundation

/// Box's Event JSON for a stored event.
struct EventRenderer: Sendable {
    let store: Store

    /// The fields of an event's `source` in Box's recorded events (Events/GetUserEvents.json).
    static let sourceFields = ["type", "id", "sequence_id", "etag", "name", "created_at", "modified_at", "description",
                               "size", "created_by", "modified_by", "owned_by", "shared_link", "parent", "item_status"]

    /// The event as `actor` (the stream's user) sees it; `created_by` is who made it; `eventType` overrides the
    /// stored name (admin streams).
    func render(_ event: EventRecord, actor: UserRecord, eventType: String? = nil) async throws -> JSONValue {
        var source: JSONValue = .null
        if let itemID = event.itemID, let item = try await store.item(id: itemID) {
            source = Self.eventSource(try await ItemRenderer(store: store, viewer: actor)
                .render(item, fields: .requested(Self.sourceFields)), isFolder: item.isFolder)
        }
        var creator = actor
        if let actorID = event.actorID, actorID != actor.id, let other = try await store.user(id: actorID) { creator = other }
        return .object([
            ("type", .string("event")), ("event_id", .string(event.eventID)), ("created_by", UserRenderer.mini(creator)),
            ("created_at", Timestamp.json(event.createdAt)), ("recorded_at", Timestamp.json(event.createdAt)),
            ("event_type", .string(eventType ?? event.eventType)),
            ("session_id", .string(String(event.eventID.replacingOccurrences(of: "-", with: "").prefix(22)))),
            ("source", source),
        ])
    }

    /// As Box's recorded event source: an empty description is `null`, folders carry `synced`.
    static func eventSource(_ rendered: JSONValue, isFolder: Bool) -> JSONValue {
        guard case .object(var pairs) = rendered else { return rendered }
        pairs = pairs.map { key, value in
            key == "description" && value == .string("") ? (key, .null) : (key, value)
        }
        if isFolder { pairs.append(("synced", .bool(false))) }
        return .object(pairs)
    }
}
