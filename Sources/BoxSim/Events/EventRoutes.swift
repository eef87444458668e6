import Foundation
import Hummingbird
import Synchronization

/// `GET /2.0/events` (user streams `all`, `changes`, `sync`: `stream_position` now / 0 / N, `limit` ≤ 500; the
/// admin streams are in `AdminEvents`), `OPTIONS /2.0/events` (one realtime server entry) and the long-poll URL it
/// names, `GET /subscribe?channel=...`, which answers `{"version":1,"message":"new_change"}` once the user has an
/// event after `stream_position` (or after the subscription) or is owed events (`EventRedelivery`), else `reconnect`
/// after `ServerSettings.longPollTimeout` seconds. A token limited to an item or to item scopes is refused both
/// (`mayFollowStream`).
struct EventRoutes: Sendable {
    let store: Store
    let settings: ServerSettings
    let channels: LongPollChannels
    let redelivery: EventRedelivery

    func register(api group: RouterGroup<BoxContext>) {
        group.get("events") { request, context in
            let user = try context.requireUser()
            let limit = min(max(try QueryParameters.int(request, "limit") ?? 100, 1), 500)
            let stream = try EventStreamType(query: request.uri.queryParameters.get("stream_type"))
            if stream.isAdmin {
                return try await AdminEvents(store: store).page(request, context: context, stream: stream, limit: limit)
            }
            guard Self.mayFollowStream(context.token) else { throw BoxError.insufficientScope() }
            let positionText = request.uri.queryParameters.get("stream_position") ?? "0"
            if positionText.lowercased() == "now" {
                let latest = try await store.latestStreamPosition(userID: user.id!)
                return jsonResponse(Self.page([], next: latest))
            }
            let position = try Self.position(positionText)
            let page = try await store.events(userID: user.id!, after: position, limit: limit,
                                              excludedTypes: stream.excludedTypes)
            let faults = try await store.eventFaults()
            let events = redelivery.deliver(page.events, userID: user.id!, faults: faults)
            let renderer = EventRenderer(store: store)
            var entries: [JSONValue] = []
            for event in events { entries.append(try await renderer.render(event, actor: user)) }
            return jsonResponse(Self.page(entries, next: page.next))
        }
        group.on("events", method: .options) { request, context in
            let user = try context.requireUser()
            guard Self.mayFollowStream(context.token) else { throw BoxError.insufficientScope() }
            let channel = channels.open(userID: user.id!, position: try await store.latestStreamPosition(userID: user.id!))
            let timeout = settings.current.longPollTimeout
            return jsonResponse(.object([("chunk_size", .int(1)), ("entries", .array([.object([
                ("type", .string("realtime_server")),
                ("url", .string(RequestBase.url(.api) + "/subscribe?channel=\(channel)&stream_type=all")),
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
                if try await store.latestStreamPosition(userID: opened.userID) > after
                    || redelivery.owes(userID: opened.userID) {
                    return jsonResponse(Self.message("new_change"))
                }
                try await Task.sleep(for: .milliseconds(200))
            }
            return jsonResponse(Self.message("reconnect"))
        }
    }

    /// Whether a token may read the user's stream: not one limited to an item (downscoped with `resource` or
    /// `box_shared_link`: the stream tells of every item of the user) nor one holding only item scopes
    /// (`item_preview`, `base_explorer`...; Box's downscoped scopes reach nothing past what they name). Box
    /// documents no answer for these; boxsim refuses as it refuses other scopes (403, insufficient_scope).
    static func mayFollowStream(_ token: TokenRecord?) -> Bool {
        guard let token else { return true }
        if token.restrictedItemID != nil { return false }
        guard let scopes = token.scopes?.split(separator: " ") else { return true }
        return scopes.contains("root_readonly") || scopes.contains("root_readwrite")
    }

    /// A numeric `stream_position` (0 or absent: from the oldest event).
    static func position(_ text: String) throws -> Int64 {
        guard let position = Int64(text), position >= 0 else {
            throw BoxError.invalidParameter("stream_position", "Invalid value '\(text)'.")
        }
        return position
    }

    /// The long-poll answer, as Box's recorded `Events/GetNewEvents.json`.
    static func message(_ text: String) -> JSONValue {
        .object([("version", .int(1)), ("message", .string(text))])
    }

    static func page(_ entries: [JSONValue], next: Int64) -> JSONValue {
        .object([("chunk_size", .int(entries.count)), ("next_stream_position", .int(next)), ("entries", .array(entries))])
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
