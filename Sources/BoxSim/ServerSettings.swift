import Synchronization

/// Settings that can change while boxsim runs (command line defaults, changed through the control API).
final class ServerSettings: Sendable {
    struct Values: Sendable {
        var accessTokenLifetime: Int64 = 3600
        /// The authorize page approves at once instead of showing a consent form.
        var autoApprove = false
        /// Lifetime of chunked upload sessions, in seconds (Box: 7 days).
        var uploadSessionLifetime: Int64 = 7 * 24 * 3600
        /// The first N commit calls of each upload session answer 202 + `Retry-After` ("still processing"),
        /// so clients' retry paths can be tested.
        var commitPendingResponses = 0
        var commitRetryAfter = 1
        /// How long the events long-poll URL holds a request before answering `reconnect` (Box: ~610 s).
        var longPollTimeout = 60
        /// API calls allowed per user per minute (nil: no limit); beyond it, 429 `rate_limit_exceeded`.
        var rateLimitPerMinute: Int?
        /// Box's per-user limits (`--box-limits`, `BoxLimiter`); nil: off.
        var boxLimits: BoxLimitProfile?
    }

    private let values: Mutex<Values>

    init(_ initial: Values) { values = Mutex(initial) }

    var current: Values { values.withLock { $0 } }

    func update(_ change: (inout Values) -> Void) {
        values.withLock { change(&$0) }
    }
}
