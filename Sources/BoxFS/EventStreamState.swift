import Foundation

/// How the mount follows Box's event stream, for `boxfs status` and for how long listings are trusted.
public struct EventStreamState: Sendable, Equatable {
    public enum Phase: String, Sendable, Codable {
        /// `-o events=off`, or a mount whose changes no event stream reports (a shared link).
        case off
        /// Finding where the stream is.
        case starting
        /// Caught up and long-polling: listings stay cached past `dir_cache_ttl`.
        case following
        /// The stream failed: listings are trusted for `dir_cache_ttl` only, until it is back.
        case fallback
    }

    public var phase: Phase = .off
    /// When the phase began.
    public var since = Date()
    /// The last stream position applied.
    public var position: String?
    /// Why the stream failed (fallback only).
    public var lastError: String?

    public init() {}

    /// Moves to `phase` (keeping `since` when the phase does not change).
    mutating func enter(_ phase: Phase, error: String? = nil) {
        if self.phase != phase { since = Date() }
        self.phase = phase
        lastError = error
    }
}
