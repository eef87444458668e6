/// The one retry policy of the client: when and how long to wait before repeating a failed request,
/// used by every Box call (the API client, the token endpoint) and by the upload journal's retries.
/// A pure value: the caller feeds it what happened, and it answers with a delay or "give up", so every
/// rule is unit-testable.
///
/// - Retried: 429 (rate limited), 500, 502, 503, 504, 202 on endpoints that mean "not ready
///   yet", and transport errors the HTTP layer marks transient (resets, timeouts, refused).
/// - Only requests that are safe to repeat are repeated after a failure that may have been applied
///   (a 5xx, a lost answer): idempotent ones, and those whose caller recognises its own earlier
///   attempt in the repeat's answer (see `BoxRequest.resolvesRepeats`). A 429 proves the request was
///   refused before it was applied, so it is retried for every request.
/// - `Retry-After` is honoured exactly (never shortened; `RetryAfter` caps it at a day); otherwise the wait is exponential
///   (`baseDelay × 2^(attempt-1)`, capped at `maxDelay`) with jitter, so that many clients
///   failing together do not retry in lockstep.
/// - Bounded twice: at most `maxAttempts` sends, and at most `maxTotalWait` seconds spent waiting
///   per request (its deadline). A wait that would overrun the budget is not started: the error is
///   returned at once, carrying `retryAfter` for a caller that wants to wait longer.
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
    /// Whether an address where nothing answers (refused, no such host) is tried again. The mount's first
    /// calls say no: a wrong endpoint then fails the mount at once, while a 5xx or 429 is still waited out.
    public var retriesUnreachable = true

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

    /// Every Box API call: 5 sends, 0.5 s doubling to 8 s, at most 30 s of waiting.
    public static let standard = RetryPolicy()
    /// Never retries.
    public static let noRetries = RetryPolicy(maxAttempts: 1)

    /// Work that is kept until it succeeds (a journaled upload): no attempt limit and no deadline.
    public static func untilDone(baseDelay: Double, maxDelay: Double, jitter: Double = 0.5) -> RetryPolicy {
        RetryPolicy(
            maxAttempts: .max, baseDelay: baseDelay, maxDelay: maxDelay, maxTotalWait: .infinity, jitter: jitter)
    }

    /// What went wrong with one attempt.
    public enum Failure: Sendable, Equatable {
        /// An HTTP answer with this status (and its `Retry-After`, in seconds, if any).
        case status(Int, retryAfter: Double?)
        /// No HTTP answer; `isTransient` as judged by the HTTP layer.
        case transport(isTransient: Bool)

        /// The server may have carried the request out although the client saw a failure (a 5xx, a
        /// lost answer): a repeat may meet the effect of the first attempt.
        public var mayHaveBeenApplied: Bool {
            switch self {
            case .status(let status, _): status >= 500
            case .transport: true
            }
        }
    }

    /// The statuses worth asking again for.
    public static func isRetryable(status: Int) -> Bool {
        [202, 429, 500, 502, 503, 504].contains(status)
    }

    /// The seconds to wait before the next attempt, or nil to give up.
    ///
    /// - Parameters:
    ///   - attempt: how many sends have been made so far (1 after the first).
    ///   - isIdempotent: whether the request may be repeated after a failure that may have been
    ///     applied; a 429 is retried regardless (the request was refused, not carried out).
    ///   - waitedSoFar: seconds already spent waiting for this request.
    ///   - random: a number in `0..<1` that drives the jitter (injected for tests).
    public func delay(
        after failure: Failure, attempt: Int, isIdempotent: Bool, waitedSoFar: Double, random: Double
    ) -> Double? {
        guard attempt < maxAttempts else { return nil }
        let wait: Double
        switch failure {
        case .transport(let isTransient):
            guard isTransient, isIdempotent else { return nil }
            wait = backoff(attempt: attempt, random: random)
        case .status(let status, let retryAfter):
            guard Self.isRetryable(status: status), isIdempotent || status == 429 else { return nil }
            wait = self.wait(retryAfter: retryAfter, attempt: attempt, random: random)
        }
        guard waitedSoFar + wait <= maxTotalWait else { return nil }
        return wait
    }

    /// The wait after `attempt` failed sends, ignoring the budget: `Retry-After` when the answer had
    /// one, else the jittered backoff. For callers that keep trying (`untilDone`).
    public func wait(retryAfter: Double?, attempt: Int, random: Double) -> Double {
        if let retryAfter, retryAfter.isFinite { return max(0, retryAfter) }
        return backoff(attempt: attempt, random: random)
    }

    /// The jittered exponential wait after `attempt` sends.
    public func backoff(attempt: Int, random: Double) -> Double {
        let doublings = max(0, min(attempt - 1, 62))
        let ceiling = min(maxDelay, baseDelay * Double(UInt64(1) << UInt64(doublings)))
        let unit = min(max(random, 0), 1)
        return ceiling * (1 - jitter * unit)
    }
}
