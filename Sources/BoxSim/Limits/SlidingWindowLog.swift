/// The times of the requests a limit accepted in its last window (a sliding window log: exact, no bursts at window
/// edges). A request fits while fewer than `limit` were accepted within `window` before it.
struct SlidingWindowLog: Sendable {
    private var accepted: [ContinuousClock.Instant] = []

    /// How long until a request fits (nil: it fits now). Forgets times that left the window.
    mutating func wait(limit: Int, window: Duration, now: ContinuousClock.Instant) -> Duration? {
        accepted.removeAll { now - $0 >= window }
        guard accepted.count >= limit else { return nil }
        // The slot frees when the oldest time that keeps the count at the limit leaves the window.
        return window - (now - accepted[accepted.count - limit])
    }

    mutating func record(_ now: ContinuousClock.Instant) { accepted.append(now) }
}

extension Duration {
    /// Whole seconds, rounded up, at least 1: what `Retry-After` says.
    var retryAfterSeconds: Int {
        let (seconds, attoseconds) = components
        return max(1, Int(seconds) + (attoseconds > 0 ? 1 : 0))
    }
}
