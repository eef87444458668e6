import Synchronization

/// Per-user request counting over a sliding minute for the configured rate (ServerSettings.rateLimitPerMinute).
/// Past it, requests get 429 `rate_limit_exceeded` with `Retry-After` (seconds until a slot frees). The
/// per-user timestamps are guarded by the mutex.
final class RateLimiter: Sendable {
    private let settings: ServerSettings
    private let recent = Mutex<[Int64: SlidingWindowLog]>([:])
    private let refusals = Mutex(0)

    /// Requests answered 429 by this limit.
    var refused: Int { refusals.withLock { $0 } }

    init(settings: ServerSettings) { self.settings = settings }

    func check(userID: Int64) throws {
        guard let limit = settings.current.rateLimitPerMinute else { return }
        let now = ContinuousClock.now
        let retryAfter: Int? = recent.withLock { table in
            guard let wait = table[userID, default: SlidingWindowLog()].wait(limit: limit, window: .seconds(60), now: now) else {
                table[userID, default: SlidingWindowLog()].record(now)
                return nil
            }
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
