import Hummingbird

/// `GET /2.0/events?stream_type=admin_logs` / `admin_logs_streaming`: every user's events in the enterprise.
/// Box allows them to admins (and service accounts) whose token has `manage_enterprise_properties`; anyone else
/// gets 403 with an empty body and `WWW-Authenticate: ... insufficient_scope`, as recorded for Box in
/// box/box-java-sdk#132. Event types use the admin names (`UPLOAD`, `DOWNLOAD`, `MOVE`, ...); `event_type`
/// (comma list) filters them, and for `admin_logs` `created_after`/`created_before` bound the time.
struct AdminEvents: Sendable {
    let store: Store

    func page(_ request: Request, context: BoxContext, stream: EventStreamType, limit: Int) async throws -> Response {
        let user = try context.requireUser()
        guard ["admin", "service_account"].contains(user.kind), Self.allowsEnterpriseScope(context.token)
        else { throw BoxError.insufficientScope() }
        let query = request.uri.queryParameters
        let positionText = query.get("stream_position") ?? "0"
        if positionText.lowercased() == "now" {
            return jsonResponse(EventRoutes.page([], next: try await store.latestEnterprisePosition()))
        }
        let position = try EventRoutes.position(positionText)
        var storedTypes: [String]?
        if let names = query.get("event_type"), !names.isEmpty {
            let wanted = Set(names.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).uppercased() })
            storedTypes = EventStreamType.adminNames.filter { wanted.contains($0.value) }.map(\.key)
        }
        let bounded = stream == .adminLogs
        let page = try await store.enterpriseEvents(
            enterpriseID: user.enterpriseID ?? Store.enterpriseID, after: position, limit: limit, types: storedTypes,
            createdAfter: bounded ? try Self.time(query.get("created_after"), "created_after") : nil,
            createdBefore: bounded ? try Self.time(query.get("created_before"), "created_before") : nil)
        let actors = try await store.users(ids: Set(page.events.map(\.userID)))
        let renderer = EventRenderer(store: store)
        var entries: [JSONValue] = []
        for event in page.events {
            guard let actor = actors[event.userID] else { continue }
            let name = EventStreamType.adminNames[event.eventType] ?? event.eventType
            entries.append(try await renderer.render(event, actor: actor, eventType: name))
        }
        return jsonResponse(EventRoutes.page(entries, next: page.next))
    }

    /// Tokens without scopes (developer tokens, app tokens) have every scope the app has.
    static func allowsEnterpriseScope(_ token: TokenRecord?) -> Bool {
        guard let scopes = token?.scopes else { return true }
        return scopes.split(separator: " ").contains("manage_enterprise_properties")
    }

    private static func time(_ text: String?, _ name: String) throws -> Int64? {
        guard let text, !text.isEmpty else { return nil }
        guard let time = Timestamp.parse(text) else { throw BoxError.invalidParameter(name, "Invalid value '\(text)'.") }
        return time
    }
}
