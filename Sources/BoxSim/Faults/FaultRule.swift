import Foundation

/// Where a cut connection is dropped (`cut_phase`).
enum CutPhase: String, Sendable, CaseIterable {
    /// The server reads part of the request body, then drops the connection without answering.
    case requestBody = "request_body"
    /// The answer's head and part of its body go out, then the connection is dropped.
    case responseBody = "response_body"
    /// The request is handled (its change applied) but the connection is dropped before the answer goes out.
    case afterHandling = "after_handling"
}

/// One fault injected into matching requests (set through `POST /_control/faults`; fields in docs/BOXSIM.md).
struct FaultRule: Sendable {
    var id: Int
    /// Requests whose path starts with this (e.g. `/2.0/files`, `/dl/`); nil matches every API request.
    var pathPrefix: String?
    var method: String?
    /// Added before the request is handled.
    var latencyMilliseconds: Int = 0
    /// Added after the request is handled, before its answer goes out (a change applied, its answer slow).
    var answerLatencyMilliseconds: Int = 0
    /// Answer this status (with Box's error body) for a share of the requests instead of handling them.
    var errorStatus: Int?
    var errorRate: Double = 1
    /// The Box error `code` of that answer (default: the one Box uses for the status).
    var errorCode: String?
    /// Answer 429 `rate_limit_exceeded` with `Retry-After` to the next N matching requests.
    var burst429: Int = 0
    var retryAfterSeconds: Int = 1
    /// Drop the connection of this share of the requests, in one of `cutPhases` (picked at random per cut),
    /// after `cutAfterBytes` body bytes (of the request or the response; nil: at a random point of the body).
    var cutRate: Double?
    var cutPhases: [CutPhase] = [.responseBody]
    var cutAfterBytes: Int64?
    /// Stall before the answer (`stallAfterBytes` nil) or after that many response body bytes, for
    /// `stallMilliseconds` (nil: until the client goes away).
    var stalls = false
    var stallMilliseconds: Int?
    var stallAfterBytes: Int64?
    /// Flip a byte of the 2xx response body of this share of the requests: the one at `corruptAfterBytes`
    /// (nil: a random one).
    var corruptRate: Double?
    var corruptAfterBytes: Int64?
    /// Limit the body to this many bytes per second.
    var bandwidthBytesPerSecond: Int64?
    /// How many more matching requests this rule applies to (nil: unlimited).
    var remaining: Int?
    /// How many more matching requests pass untouched before the rule applies (the first lookup of a name passes,
    /// the listing that follows it is held).
    var skip: Int

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
        answerLatencyMilliseconds = (json["answer_latency_ms"] as? NSNumber)?.intValue ?? 0
        errorStatus = (json["error_status"] as? NSNumber)?.intValue
        errorRate = (json["error_rate"] as? NSNumber)?.doubleValue ?? 1
        errorCode = json["error_code"] as? String
        burst429 = (json["burst_429"] as? NSNumber)?.intValue ?? 0
        retryAfterSeconds = (json["retry_after"] as? NSNumber)?.intValue ?? 1
        cutAfterBytes = (json["cut_after_bytes"] as? NSNumber)?.int64Value
        cutRate = (json["cut_rate"] as? NSNumber)?.doubleValue
        if let phase = json["cut_phase"] {
            guard let name = phase as? String, name == "any" || CutPhase(rawValue: name) != nil else {
                throw BoxError.badRequest("cut_phase must be request_body, response_body, after_handling or any")
            }
            cutPhases = name == "any" ? CutPhase.allCases : [CutPhase(rawValue: name)!]
            if cutRate == nil { cutRate = 1 }
        }
        if cutAfterBytes != nil && cutRate == nil { cutRate = 1 }
        stallMilliseconds = (json["stall_ms"] as? NSNumber)?.intValue
        stallAfterBytes = (json["stall_after_bytes"] as? NSNumber)?.int64Value
        stalls = (json["stall"] as? NSNumber)?.boolValue ?? false || stallMilliseconds != nil || stallAfterBytes != nil
        corruptRate = (json["corrupt_rate"] as? NSNumber)?.doubleValue
        corruptAfterBytes = (json["corrupt_after_bytes"] as? NSNumber)?.int64Value
        if corruptAfterBytes != nil && corruptRate == nil { corruptRate = 1 }
        bandwidthBytesPerSecond = (json["bandwidth_bytes_per_second"] as? NSNumber)?.int64Value
        remaining = (json["count"] as? NSNumber)?.intValue
        skip = (json["skip"] as? NSNumber)?.intValue ?? 0
        if skip < 0 { throw BoxError.badRequest("skip must not be negative") }
        if let status = errorStatus, !(400...599).contains(status) {
            throw BoxError.badRequest("error_status must be 400...599")
        }
        for (name, rate) in [("error_rate", errorRate), ("cut_rate", cutRate), ("corrupt_rate", corruptRate)] {
            if let rate, !(0...1).contains(rate) { throw BoxError.badRequest("\(name) must be 0...1") }
        }
        for (name, bytes) in [("cut_after_bytes", cutAfterBytes), ("stall_after_bytes", stallAfterBytes),
                              ("corrupt_after_bytes", corruptAfterBytes)] {
            if let bytes, bytes < 0 { throw BoxError.badRequest("\(name) must not be negative") }
        }
        if let milliseconds = stallMilliseconds, milliseconds <= 0 {
            throw BoxError.badRequest("stall_ms must be positive (leave it out to stall until the client goes away)")
        }
        if let rate = bandwidthBytesPerSecond, rate <= 0 { throw BoxError.badRequest("bandwidth must be positive") }
    }

    var json: JSONValue {
        func int(_ value: Int64?) -> JSONValue { value.map { .int($0) } ?? .null }
        func double(_ value: Double?) -> JSONValue { value.map { .double($0) } ?? .null }
        return .object([
            ("id", .int(Int64(id))), ("path_prefix", .string(pathPrefix)), ("method", .string(method)),
            ("latency_ms", .int(Int64(latencyMilliseconds))),
            ("answer_latency_ms", .int(Int64(answerLatencyMilliseconds))), ("error_status", int(errorStatus.map(Int64.init))),
            ("error_rate", .double(errorRate)), ("error_code", .string(errorCode)), ("burst_429", .int(Int64(burst429))),
            ("retry_after", .int(Int64(retryAfterSeconds))),
            ("cut_rate", double(cutRate)),
            ("cut_phase", .string(cutRate == nil ? nil
                                  : cutPhases.count > 1 ? "any" : cutPhases.first?.rawValue)),
            ("cut_after_bytes", int(cutAfterBytes)),
            ("stall", .bool(stalls)), ("stall_ms", int(stallMilliseconds.map(Int64.init))),
            ("stall_after_bytes", int(stallAfterBytes)),
            ("corrupt_rate", double(corruptRate)), ("corrupt_after_bytes", int(corruptAfterBytes)),
            ("bandwidth_bytes_per_second", int(bandwidthBytesPerSecond)),
            ("count", int(remaining.map(Int64.init))), ("skip", .int(Int64(skip))),
        ])
    }
}
