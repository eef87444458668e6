import Foundation
import Hummingbird
import Synchronization

/// `GET /2.0/events` (user stream: `stream_position` now / 0 / N, `limit` ≤ 500), `OPTIONS /2.0/events`
/// (one realtime server entry) and the long-poll URL it names, `GET /subscribe?channel=...`, which answers
/// `{"message":"new_change"}` once the user has an event after `stream_position` (or after the subscription),
/// else `{"message":"reconnect"}` after `ServerSettings.longPollTimeout` seconds.
struct EventRoutes: Sendable {
    let store: Store
    let settings: ServerSettings
    let channels: LongPollChannels

    func register(api group: RouterGroup<BoxContext>) {
        group.get("events") { request, context in
            let user = try context.requireUser()
            let limit = min(max(try QueryParameters.int(request, "limit") ?? 100, 1), 500)
            let positionText = request.uri.queryParameters.get("stream_position") ?? "0"
            if positionText.lowercased() == "now" {
                let latest = try await store.latestStreamPosition(userID: user.id!)
                return jsonResponse(Self.page([], next: latest))
            }
            guard let position = Int64(positionText), position >= 0 else {
                throw BoxError.invalidParameter("stream_position", "Invalid value '\(positionText)'.")
            }
            let events = try await store.events(userID: user.id!, after: position, limit: limit)
            let renderer = ItemRenderer(store: store, viewer: user)
            var entries: [JSONValue] = []
            for event in events { entries.append(try await render(event, renderer: renderer, user: user)) }
            return jsonResponse(Self.page(entries, next: events.last?.id ?? position))
        }
        group.on("events", method: .options) { request, context in
            let user = try context.requireUser()
            let channel = channels.open(userID: user.id!, position: try await store.latestStreamPosition(userID: user.id!))
            let timeout = settings.current.longPollTimeout
            return jsonResponse(.object([("chunk_size", .int(1)), ("entries", .array([.object([
                ("type", .string("realtime_server")),
                ("url", .string(BaseURL.of(request) + "/subscribe?channel=\(channel)&stream_type=all")),
                ("ttl", .string("10")), ("max_retries", .string("10")), ("retry_timeout", .int(Int64(timeout))),
            ])]))]))
        }
    }

    func register(root router: Router<BoxContext>) {
        router.get("subscribe") { request, context in
            guard let channel = request.uri.queryParameters.get("channel"), let opened = channels.lookup(channel) else {
                return jsonResponse(Self.message("reconnect"))
            }
            context.state.userID = opened.userID
            let after = request.uri.queryParameters.get("stream_position").flatMap { Int64($0) } ?? opened.position
            let deadline = ContinuousClock.now + .seconds(settings.current.longPollTimeout)
            while ContinuousClock.now < deadline {
                if try await store.latestStreamPosition(userID: opened.userID) > after {
                    return jsonResponse(Self.message("new_change"))
                }
                try await Task.sleep(for: .milliseconds(200))
            }
            return jsonResponse(Self.message("reconnect"))
        }
    }

    /// The fields of an event's `source` in Box's recorded events (Events/GetUserEvents.json).
    static let sourceFields = ["type", "id", "sequence_id", "etag", "name", "created_at", "modified_at", "description",
                               "size", "created_by", "modified_by", "owned_by", "shared_link", "parent", "item_status"]

    static func message(_ text: String) -> JSONValue {
        .object([("message", .string(text))])
    }

    static func page(_ entries: [JSONValue], next: Int64) -> JSONValue {
        .object([("chunk_size", .int(entries.count)), ("next_stream_position", .int(next)), ("entries", .array(entries))])
    }

    private func render(_ event: EventRecord, renderer: ItemRenderer, user: UserRecord) async throws -> JSONValue {
        var source: JSONValue = .null
        if let itemID = event.itemID, let item = try await store.item(id: itemID) {
            source = try await renderer.render(item, fields: .requested(Self.sourceFields))
        }
        return .object([
            ("type", .string("event")), ("event_id", .string(event.eventID)), ("created_by", UserRenderer.mini(user)),
            ("created_at", Timestamp.json(event.createdAt)), ("recorded_at", Timestamp.json(event.createdAt)),
            ("event_type", .string(event.eventType)),
            ("session_id", .string(String(event.eventID.replacingOccurrences(of: "-", with: "").prefix(22)))),
            ("source", source),
        ])
    }
}

/// Long-poll channels handed out by `OPTIONS /2.0/events` (in memory; after a restart clients get `reconnect`
/// and ask again). Guarded by the mutex.
final class LongPollChannels: Sendable {
    struct Opened: Sendable {
        var userID: Int64
        var position: Int64
    }

    private let channels = Mutex<[String: Opened]>([:])

    func open(userID: Int64, position: Int64) -> String {
        let channel = "cc-" + Store.randomToken(length: 24)
        channels.withLock { $0[channel] = Opened(userID: userID, position: position) }
        return channel
    }

    func lookup(_ channel: String) -> Opened? { channels.withLock { $0[channel] } }
}
