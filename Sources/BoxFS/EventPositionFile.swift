import Foundation
import SystemCalls

/// Where a mount keeps the last event stream position it applied, so the next mount catches up on what
/// changed meanwhile. One line of digits; written atomically (temp file, rename) on a queue of its own,
/// never on Swift's cooperative pool.
public struct EventPositionFile: Sendable {
    public let url: URL
    private let queue = DispatchQueue(label: "boxfs.event-position")

    public init(url: URL) { self.url = url }

    /// The saved position, or nil (none yet, or unreadable).
    public func read() -> String? {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return nil }
        let position = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return !position.isEmpty && position.allSatisfy({ $0.isASCII && $0.isNumber }) ? position : nil
    }

    /// Seconds since the position was saved (the file's modification time), or nil when there is none.
    public func age(now: Date = Date()) -> Double? {
        guard let modified = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date
        else { return nil }
        return now.timeIntervalSince(modified)
    }

    /// Forgets the saved position (one too old to catch up from).
    func remove() async {
        await onQueue { [url] in try? Syscall.unlink(url.path) }
    }

    /// Saves `position` soon; returns at once.
    func save(_ position: String) {
        queue.async { [url] in Self.write(position, to: url) }
    }

    /// Waits (suspended: no thread of the caller's is held) for the saves already asked for.
    func flush() async {
        await onQueue {}
    }

    private func onQueue(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                body()
                continuation.resume()
            }
        }
    }

    private static func write(_ position: String, to url: URL) {
        let temporary = url.appendingPathExtension("tmp")
        do {
            try Data((position + "\n").utf8).write(to: temporary)
            try Syscall.rename(temporary.path, to: url.path)
        } catch {
            // The next mount then starts from `now` and drops nothing it has not fetched itself.
        }
    }
}
