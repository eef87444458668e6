import Synchronization

/// What the fault rules decided for one request.
struct FaultDecision: Sendable {
    struct Cut: Sendable {
        var phase: CutPhase
        /// Body bytes (of the request or the response, by phase) before the cut; nil: a random point.
        var afterBytes: Int64?
    }

    struct Stall: Sendable {
        /// Response body bytes before the stall; nil: before the answer.
        var afterBytes: Int64?
        /// nil: until the client goes away.
        var milliseconds: Int?
    }

    var latencyMilliseconds = 0
    var answerLatencyMilliseconds = 0
    /// Answer at once with this error instead of handling the request.
    var error: BoxError?
    var cut: Cut?
    var stall: Stall?
    /// Flip one byte of a 2xx body; the inner value is its offset (nil: a random one).
    var corrupt: Int64??
    var bandwidthBytesPerSecond: Int64?

    /// Whether the response body must be made of real bytes passed through `ShapedBodyWriter`.
    var reshapesBody: Bool {
        cut?.phase == .responseBody || stall?.afterBytes != nil || corrupt != nil || bandwidthBytesPerSecond != nil
    }
}

/// The active fault rules; consulted once per request. Rules and their counters are guarded by the mutex.
final class FaultInjector: Sendable {
    private let state = Mutex<(rules: [FaultRule], nextID: Int)>(([], 1))

    func add(_ json: [String: Any]) throws -> FaultRule {
        try state.withLock { state in
            let rule = try FaultRule(id: state.nextID, json: json)
            state.nextID += 1
            state.rules.append(rule)
            return rule
        }
    }

    var rules: [FaultRule] { state.withLock { $0.rules } }

    func clear() { state.withLock { $0.rules.removeAll() } }

    func decide(method: String, path: String) -> FaultDecision {
        state.withLock { state in
            var decision = FaultDecision()
            for index in state.rules.indices where state.rules[index].matches(method: method, path: path) {
                var rule = state.rules[index]
                if rule.skip > 0 {
                    state.rules[index].skip -= 1
                    continue
                }
                if let remaining = rule.remaining {
                    if remaining <= 0 { continue }
                    rule.remaining = remaining - 1
                }
                decision.latencyMilliseconds += rule.latencyMilliseconds
                decision.answerLatencyMilliseconds += rule.answerLatencyMilliseconds
                if decision.error == nil && rule.burst429 > 0 {
                    rule.burst429 -= 1
                    decision.error = .rateLimited(retryAfter: rule.retryAfterSeconds)
                } else if decision.error == nil, let status = rule.errorStatus, Double.random(in: 0..<1) < rule.errorRate {
                    decision.error = .injected(status: status, code: rule.errorCode, retryAfter: rule.retryAfterSeconds)
                }
                if decision.cut == nil, let rate = rule.cutRate, Double.random(in: 0..<1) < rate {
                    decision.cut = .init(phase: rule.cutPhases.randomElement()!, afterBytes: rule.cutAfterBytes)
                }
                if decision.stall == nil && rule.stalls {
                    decision.stall = .init(afterBytes: rule.stallAfterBytes, milliseconds: rule.stallMilliseconds)
                }
                if decision.corrupt == nil, let rate = rule.corruptRate, Double.random(in: 0..<1) < rate {
                    decision.corrupt = .some(rule.corruptAfterBytes)
                }
                if let rate = rule.bandwidthBytesPerSecond {
                    decision.bandwidthBytesPerSecond = min(rate, decision.bandwidthBytesPerSecond ?? .max)
                }
                state.rules[index] = rule
            }
            state.rules.removeAll { $0.remaining == 0 }
            return decision
        }
    }
}

extension BoxError {
    static func rateLimited(retryAfter: Int) -> BoxError {
        var error = BoxError(status: .tooManyRequests, code: "rate_limit_exceeded",
                             message: "Request rate limit exceeded, please try again later")
        error.headers[.retryAfter] = String(retryAfter)
        return error
    }

    /// An injected error status, with the code Box uses for it.
    static func injected(status: Int, code given: String? = nil, retryAfter: Int) -> BoxError {
        var (code, message): (String, String) = switch status {
        case 429: ("rate_limit_exceeded", "Request rate limit exceeded, please try again later")
        case 500: ("internal_server_error", "Internal Server Error")
        case 502: ("bad_gateway", "Bad Gateway")
        case 503: ("unavailable", "Unavailable")
        case 504: ("gateway_timeout", "Gateway Timeout")
        default: ("injected_fault", "Injected fault")
        }
        if let given { (code, message) = (given, "Injected fault: \(given)") }
        var error = BoxError(status: .init(code: status), code: code, message: message)
        if status == 429 || status == 503 { error.headers[.retryAfter] = String(retryAfter) }
        return error
    }
}
