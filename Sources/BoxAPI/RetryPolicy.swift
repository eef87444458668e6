/// When and how long to wait before repeating a failed request. A pure value: the client feeds
/// it what happened, and it answers with a delay or "give up", so every rule is unit-testable.
///
/// - Only idempotent requests are retried; a POST that may have been applied is never repeated.
/// - Retried: 429 (rate limited), 500, 502, 503, 504, 202 on endpoints that mean "not ready
///   yet", and transport errors the HTTP layer marks transient (resets, timeouts, refused).
/// - `Retry-After` is honoured exactly (never shortened); otherwise the wait is exponential
///   (`baseDelay × 2^(attempt-1)`, capped at `maxDelay`) with jitter, so that many clients
///   failing together do not retry in lockstep.
/// - Bounded twice: at most `maxAttempts` sends, and at most `maxTotalWait` seconds spent waiting
///   per request. A wait that would overrun the budget is not started: the error is returned at
///   once, carrying `retryAfter` for a caller that wants to wait longer.
public struct RetryPolicy: Sendable, Equatable {
    /// Total sends, the first included. 1 disables retries.
    public var maxAttempts: Int
    /// The first backoff wait, in seconds.
    public var baseDelay: Double
    /// The largest single backoff wait (not applied to `Retry-After`), in seconds.
    public var maxDelay: Double
    /// The most time spent waiting between attempts of one request, in seconds.
    public var maxTotalWait: Double
    /// 0…1: the backoff wait is drawn uniformly from `[delay × (1 - jitter), delay]`.
    public var jitter: Double

    public init(
        maxAttempts: Int = 5, baseDelay: Double = 0.5, maxDelay: Double = 8, maxTotalWait: Double = 30,
        jitter: Double = 0.5
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = max(0, baseDelay)
        self.maxDelay = max(0, maxDelay)
        self.maxTotalWait = max(0, maxTotalWait)
        self.jitter = min(1, max(0, jitter))
    }

    public static let standard = RetryPolicy()
    /// Never retries.
    public static let noRetries = RetryPolicy(maxAttempts: 1)

    /// What went wrong with one attempt.
    public enum Failure: Sendable, Equatable {
        /// An HTTP answer with this status (and its `Retry-After`, in seconds, if any).
        case status(Int, retryAfter: Double?)
        /// No HTTP answer; `isTransient` as judged by the HTTP layer.
        case transport(isTransient: Bool)
    }

    /// The statuses worth asking again for, given that the request is idempotent.
    public static func isRetryable(status: Int) -> Bool {
        [202, 429, 500, 502, 503, 504].contains(status)
    }

    /// The seconds to wait before the next attempt, or nil to give up.
    ///
    /// - Parameters:
    ///   - attempt: how many sends have been made so far (1 after the first).
    ///   - waitedSoFar: seconds already spent waiting for this request.
    ///   - random: a number in `0..<1` that drives the jitter (injected for tests).
    public func delay(
        after failure: Failure, attempt: Int, isIdempotent: Bool, waitedSoFar: Double, random: Double
    ) -> Double? {
        guard isIdempotent, attempt < maxAttempts else { return nil }
        let wait: Double
        switch failure {
        case .transport(let isTransient):
            guard isTransient else { return nil }
            wait = backoff(attempt: attempt, random: random)
        case .status(let status, let retryAfter):
            guard Self.isRetryable(status: status) else { return nil }
            if let retryAfter, retryAfter.isFinite {
                wait = max(0, retryAfter)
            } else {
                wait = backoff(attempt: attempt, random: random)
            }
        }
        guard waitedSoFar + wait <= maxTotalWait else { return nil }
        return wait
    }

    /// The jittered exponential wait after `attempt` sends.
    public func backoff(attempt: Int, random: Double) -> Double {
        let doublings = max(0, min(attempt - 1, 62))
        let ceiling = min(maxDelay, baseDelay * Double(1 << doublings))
        let unit = min(max(random, 0), 1)
        return ceiling * (1 - jitter * unit)
    }
}
