import Foundation

/// Waiting for something asynchronous (an upload, a daemon exiting) without fixed sleeps.
public enum Poll {
    public struct TimedOut: Error, CustomStringConvertible {
        public let description: String
    }

    /// Calls `check` every `interval` seconds until it answers a value, and answers that value; after `timeout`
    /// seconds throws `TimedOut` naming `what` and the last thing `check` threw (errors count as "not yet").
    @discardableResult
    public static func until<T>(
        _ what: String, timeout: Double = 60, interval: Double = 0.2, _ check: () throws -> T?
    ) async throws -> T {
        let deadline = Date().addingTimeInterval(timeout)
        var lastError: (any Error)?
        while true {
            do {
                if let value = try check() { return value }
                lastError = nil
            } catch {
                lastError = error
            }
            if Date() > deadline {
                throw TimedOut(description: "timed out after \(timeout) s waiting for \(what)"
                               + (lastError.map { "; last error: \($0)" } ?? ""))
            }
            try await Task.sleep(nanoseconds: UInt64(interval * 1_000_000_000))
        }
    }
}
