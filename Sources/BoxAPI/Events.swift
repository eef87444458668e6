import CurlHTTP

extension BoxClient {
    /// The most events Box returns per page.
    public static let eventPageLimit = 500

    /// The user stream's current position (`GET /2.0/events?stream_position=now`): events after it are new.
    public func eventStreamPosition() async throws -> String {
        let url = apiURL("events", query: [("stream_type", "changes"), ("stream_position", "now")])
        return try await executeJSON(.get(url), as: EventPageDTO.self).page.nextStreamPosition
    }

    /// The events of the user's `changes` stream (or `streamType`) after `position`, at most `limit`.
    public func events(after position: String, streamType: String = "changes", limit: Int = eventPageLimit)
        async throws -> BoxEventPage
    {
        let url = apiURL(
            "events", query: [("stream_type", streamType), ("stream_position", position), ("limit", String(limit))])
        return try await executeJSON(.get(url), as: EventPageDTO.self).page
    }

    /// `OPTIONS /2.0/events`: where to long-poll for news of the stream.
    public func realtimeServer() async throws -> RealtimeServer {
        let request = BoxRequest(method: .options, url: apiURL("events"))
        let servers = try await executeJSON(request, as: RealtimeServersDTO.self).servers
        guard let server = servers.first else {
            throw BoxAPIError(kind: .decoding("no realtime_server in the answer"), status: 200,
                              request: request.logDescription)
        }
        return server
    }

    /// One long poll of `server` for events after `position`: held by the server up to its `retryTimeout`.
    /// Sent once (the caller decides what to do on errors), without the access token (the URL names the
    /// channel), with a stall limit `margin` beyond the server's timeout.
    public func longPoll(_ server: RealtimeServer, position: String, margin: Duration = .seconds(30))
        async throws -> LongPollResult
    {
        let separator = server.url.contains("?") ? "&" : "?"
        var request = BoxRequest.get(server.url + separator + "stream_position=" + BoxURL.encode(position))
        request.isAuthorized = false
        request.unauthorizedLogName = "<event long poll>"
        let limit = Duration.seconds(max(server.retryTimeout, 1)) + margin
        request.timeouts = HTTPTimeouts(lowSpeedTime: limit, total: limit + .seconds(5))
        let message = try await withRetryPolicy(.noRetries).executeJSON(request, as: LongPollMessageDTO.self).message
        switch message {
        case "new_change": return .newChange
        case "reconnect": return .reconnect
        default: return .other(message)
        }
    }
}
