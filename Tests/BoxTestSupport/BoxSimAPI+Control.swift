import Foundation

/// Upload sessions, the current user, and boxsim's control API (limits, faults).
extension BoxSimAPI {
    /// `GET /api/2.0/files/upload_sessions/{id}` (total_parts, part_size, num_parts_processed).
    public func uploadSession(_ id: String) throws -> [String: Any] {
        try call("GET", "/api/2.0/files/upload_sessions/\(id)")
    }

    public func currentUser() throws -> [String: Any] {
        try call("GET", "/2.0/users/me?fields=id,space_amount,space_used,max_upload_size")
    }

    /// `PUT /_control/users/{id}` for the token's user: `space_amount`, `max_upload_size`, `status`.
    @discardableResult
    public func updateCurrentUser(_ fields: [String: Any]) throws -> [String: Any] {
        guard let id = try currentUser()["id"] as? String else { throw Failure(description: "no user id") }
        return try call("PUT", "/_control/users/\(id)", json: fields)
    }

    /// `POST /_control/event_faults` (docs/BOXSIM.md "Event faults"): drop the next `drop` events, delay every
    /// later one by `delayMilliseconds`; nil leaves that fault as it is.
    public func setEventFaults(drop: Int? = nil, delayMilliseconds: Int? = nil) throws {
        var body: [String: Any] = [:]
        if let drop { body["drop"] = drop }
        if let delayMilliseconds { body["delay_ms"] = delayMilliseconds }
        try call("POST", "/_control/event_faults", json: body)
    }

    /// Adds a fault rule (docs/BOXSIM.md); answers its id.
    @discardableResult
    public func addFault(_ rule: [String: Any]) throws -> Int {
        (try call("POST", "/_control/faults", json: rule)["id"] as? NSNumber)?.intValue ?? 0
    }

    public func clearFaults() throws {
        try call("DELETE", "/_control/faults")
    }

    /// Where `cutConnections` drops a connection (docs/BOXSIM.md `cut_phase`).
    public enum CutPhase: String, Sendable {
        /// Part of the request body is read, then no answer.
        case requestBody = "request_body"
        /// The answer's head and part of its body, then nothing.
        case responseBody = "response_body"
        /// The request is handled (a change is applied) but its answer is lost.
        case afterHandling = "after_handling"
        /// One of the three, at random per cut.
        case any
    }

    /// Drops the connection of a share (`rate`) of the matching requests in `phase`, after `afterBytes` body bytes
    /// (nil: at a random point); `count` limits the rule to that many matching requests.
    @discardableResult
    public func cutConnections(pathPrefix: String? = nil, method: String? = nil, rate: Double = 1,
                               phase: CutPhase = .any, afterBytes: Int64? = nil, count: Int? = nil) throws -> Int {
        var rule: [String: Any] = ["cut_rate": rate, "cut_phase": phase.rawValue]
        rule["cut_after_bytes"] = afterBytes
        return try addFault(Self.matching(rule, pathPrefix: pathPrefix, method: method, count: count))
    }

    /// Stalls matching answers: before the answer (`afterBytes` nil) or after that many body bytes, for
    /// `milliseconds` (nil: until the client goes away).
    @discardableResult
    public func stallResponses(pathPrefix: String? = nil, method: String? = nil, afterBytes: Int64? = nil,
                               milliseconds: Int? = nil, count: Int? = nil) throws -> Int {
        var rule: [String: Any] = ["stall": true]
        rule["stall_after_bytes"] = afterBytes
        rule["stall_ms"] = milliseconds
        return try addFault(Self.matching(rule, pathPrefix: pathPrefix, method: method, count: count))
    }

    /// Flips one byte of a share (`rate`) of the matching 2xx bodies (downloads by default): the byte at body
    /// offset `atByte` (nil: a random one). The answer is otherwise normal (200/206, right length).
    @discardableResult
    public func corruptBodies(pathPrefix: String? = "/dl/", rate: Double = 1, atByte: Int64? = nil,
                              count: Int? = nil) throws -> Int {
        var rule: [String: Any] = ["corrupt_rate": rate]
        rule["corrupt_after_bytes"] = atByte
        return try addFault(Self.matching(rule, pathPrefix: pathPrefix, method: nil, count: count))
    }

    /// Answers 429 `rate_limit_exceeded` with `Retry-After: retryAfter` to a share (`rate`) of matching requests.
    @discardableResult
    public func rateLimit(pathPrefix: String? = nil, method: String? = nil, rate: Double = 1, retryAfter: Int = 1,
                          count: Int? = nil) throws -> Int {
        try addFault(Self.matching(["error_status": 429, "error_rate": rate, "retry_after": retryAfter],
                                   pathPrefix: pathPrefix, method: method, count: count))
    }

    private static func matching(_ rule: [String: Any], pathPrefix: String?, method: String?,
                                 count: Int?) -> [String: Any] {
        var rule = rule
        rule["path_prefix"] = pathPrefix
        rule["method"] = method
        rule["count"] = count
        return rule
    }
}
