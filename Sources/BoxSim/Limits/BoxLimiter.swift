import Synchronization

/// Enforces the `--box-limits` profile (ServerSettings.boxLimits; nil: off) per authenticated user: each limit a
/// request counts against (`BoxLimit.counted`) keeps a sliding window log. A request that would pass any of them is
/// refused with 429 `rate_limit_exceeded` and `Retry-After` (seconds until every exceeded limit has a free slot) and
/// counts against none; one that fits is recorded in all. Counts of the refusals are kept for the control API.
final class BoxLimiter: Sendable {
    private struct Key: Hashable {
        var userID: Int64
        var limit: BoxLimit
    }

    private struct State {
        var logs: [Key: SlidingWindowLog] = [:]
        /// Requests answered 429 by the profile.
        var refused = 0
        /// Per limit: refused requests that exceeded it (one request can exceed several).
        var exceeded: [BoxLimit: Int] = [:]
    }

    private let settings: ServerSettings
    private let state = Mutex(State())

    init(settings: ServerSettings) { self.settings = settings }

    func check(userID: Int64, method: String, path: String) throws {
        guard let profile = settings.current.boxLimits else { return }
        let limits = BoxLimit.counted(method: method, path: path)
        guard !limits.isEmpty else { return }
        let now = ContinuousClock.now
        let retryAfter: Int? = state.withLock { state in
            var waits: [(BoxLimit, Duration)] = []
            for limit in limits {
                if let wait = state.logs[Key(userID: userID, limit: limit), default: SlidingWindowLog()]
                    .wait(limit: profile[limit], window: limit.window, now: now) {
                    waits.append((limit, wait))
                }
            }
            guard let longest = waits.map(\.1).max() else {
                for limit in limits {
                    state.logs[Key(userID: userID, limit: limit), default: SlidingWindowLog()].record(now)
                }
                return nil
            }
            state.refused += 1
            for (limit, _) in waits { state.exceeded[limit, default: 0] += 1 }
            return longest.retryAfterSeconds
        }
        if let retryAfter { throw BoxError.rateLimited(retryAfter: retryAfter) }
    }

    /// `{"refused": N, "exceeded": {"calls_per_minute": N, ...}}`.
    var countsJSON: JSONValue {
        state.withLock { state in
            let exceeded = BoxLimit.allCases.map { ($0.rawValue, JSONValue.int(Int64(state.exceeded[$0] ?? 0))) }
            return .object([("refused", .int(Int64(state.refused))), ("exceeded", .object(exceeded))])
        }
    }

    /// Forgets the windows and the counts.
    func reset() { state.withLock { $0 = State() } }
}
