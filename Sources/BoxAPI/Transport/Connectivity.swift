import Foundation
import Logging
import Synchronization

/// Whether Box answers: set by every request of a client and its copies. The first request that
/// cannot reach Box makes the mount offline (logged once, with the reason), the first answer of
/// any kind makes it online again (logged once, with how long it lasted); `boxfs status` shows it.
public final class Connectivity: Sendable {
    public struct Offline: Sendable, Equatable {
        public var since: Date
        public var reason: String
    }

    private let state = Mutex<Offline?>(nil)
    /// Run (off any lock) each time Box answers again after being out of reach.
    private let reachedAgain = Mutex<[@Sendable () -> Void]>([])
    private let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    /// Since when, and why, Box cannot be reached; nil while it answers.
    public var offline: Offline? { state.withLock { $0 } }

    func reached() {
        guard let ended = state.withLock({ value -> Offline? in defer { value = nil }; return value }) else { return }
        let seconds = Int(Date().timeIntervalSince(ended.since).rounded())
        logger.notice("Box answers again (it was unreachable for \(seconds) s)")
        for action in reachedAgain.withLock({ $0 }) { action() }
    }

    /// Runs `action` each time Box answers again after being out of reach (the uploads waiting out their backoff
    /// are tried at once, say). `action` must return at once.
    public func whenReachedAgain(_ action: @escaping @Sendable () -> Void) {
        reachedAgain.withLock { $0.append(action) }
    }

    func unreachable(_ reason: String) {
        let first = state.withLock { value -> Bool in
            guard value == nil else { return false }
            value = Offline(since: Date(), reason: reason)
            return true
        }
        if first {
            logger.warning("Box is unreachable (\(reason)): reads fail with EIO and uploads wait until it answers again")
        }
    }
}
