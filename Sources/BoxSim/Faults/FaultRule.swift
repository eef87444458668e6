import Foundation

/// One fault injected into matching requests (set through `POST /_control/faults`).
struct FaultRule: Sendable {
    var id: Int
    /// Requests whose path starts with this (e.g. `/2.0/files`, `/dl/`); nil matches every API request.
    var pathPrefix: String?
    var method: String?
    /// Added before the request is handled.
    var latencyMilliseconds: Int = 0
    /// Answer this status (with Box's error body) for a share of the requests instead of handling them.
    var errorStatus: Int?
    var errorRate: Double = 1
    /// The Box error `code` of that answer (default: the one Box uses for the status).
    var errorCode: String?
    /// Answer 429 `rate_limit_exceeded` with `Retry-After` to the next N matching requests.
    var burst429: Int = 0
    var retryAfterSeconds: Int = 1
    /// Close the connection after this many body bytes.
    var cutAfterBytes: Int64?
    /// Limit the body to this many bytes per second.
    var bandwidthBytesPerSecond: Int64?
    /// How many more matching requests this rule applies to (nil: unlimited).
    var remaining: Int?

    func matches(method requestMethod: String, path: String) -> Bool {
        if let method, method.uppercased() != requestMethod { return false }
        if let pathPrefix, !path.hasPrefix(pathPrefix) { return false }
        return true
    }

    init(id: Int, json: [String: Any]) throws {
        self.id = id
        pathPrefix = json["path_prefix"] as? String
        method = json["method"] as? String
        latencyMilliseconds = (json["latency_ms"] as? NSNumber)?.intValue ?? 0
        errorStatus = (json["error_status"] as? NSNumber)?.intValue
        errorRate = (json["error_rate"] as? NSNumber)?.doubleValue ?? 1
        errorCode = json["error_code"] as? String
        burst429 = (json["burst_429"] as? NSNumber)?.intValue ?? 0
        retryAfterSeconds = (json["retry_after"] as? NSNumber)?.intValue ?? 1
        cutAfterBytes = (json["cut_after_bytes"] as? NSNumber)?.int64Value
        bandwidthBytesPerSecond = (json["bandwidth_bytes_per_second"] as? NSNumber)?.int64Value
        remaining = (json["count"] as? NSNumber)?.intValue
        if let status = errorStatus, !(400...599).contains(status) {
            throw BoxError.badRequest("error_status must be 400...599")
        }
        if let rate = bandwidthBytesPerSecond, rate <= 0 { throw BoxError.badRequest("bandwidth must be positive") }
    }

    var json: JSONValue {
        .object([
            ("id", .int(Int64(id))), ("path_prefix", .string(pathPrefix)), ("method", .string(method)),
            ("latency_ms", .int(Int64(latencyMilliseconds))), ("error_status", errorStatus.map { .int(Int64($0)) } ?? .null),
            ("error_rate", .double(errorRate)), ("error_code", .string(errorCode)), ("burst_429", .int(Int64(burst429))),
            ("retry_after", .int(Int64(retryAfterSeconds))), ("cut_after_bytes", cutAfterBytes.map { .int($0) } ?? .null),
            ("bandwidth_bytes_per_second", bandwidthBytesPerSecond.map { .int($0) } ?? .null),
            ("count", remaining.map { .int(Int64($0)) } ?? .null),
        ])
    }
}
