import Synchronization

/// Per-user request counting over a sliding minute for the configured rate (ServerSettings.rateLimitPerMinute).
/// Past it, requests get 429 `rate_limit_exceeded` with `Retry-After` (seconds until a slot frees). The
/// per-user timestamps are guarded by the mutex.
final class RateLimiter: Sendable {
    private let settings: ServerSettings
    private let recent = Mutex<[Int64: [ContinuousClock.Instant]]>([:])
    private let refusals = Mutex(0)

    /// Requests answered 429 by this limit.
    var refused: Int { refusals.withLock { $0 } }

    init(settings: ServerSettings) { self.settings = settings }

    func check(userID: Int64) throws {
        guard let limit = settings.current.rateLimitPerMinute else { return }
        let now = ContinuousClock.now
        let retryAfter: Int? = recent.withLock { table in
            var times = table[userID, default: []].filter { now - $0 < .seconds(60) }
            defer { table[userID] = times }
            guard times.count >= limit else {
                times.append(now)
                return nil
            }
            let wait = times.first.map { .seconds(60) - (now - $0) } ?? .seconds(1)
            return max(1, Int(wait.components.seconds) + 1)
        }
        if let retryAfter {
            refusals.withLock { $0 += 1 }
            throw BoxError.rateLimited(retryAfter: retryAfter)
        }
    }

    func reset() {
        recent.withLock { $0.removeAll() }
        refusals.withLock { $0 = 0 }
    }
}
