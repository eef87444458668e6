import Foundation

/// Another process holding a token store's lock, as a second mount does while it refreshes: `flock(1)`
/// takes `<store>.lock`, signals that it holds it, sleeps, optionally replaces the token file the way the
/// file store does (temp file, then `mv`), and exits, which releases the lock.
final class LockHoldingProcess {
    private let process = Process()

    /// Starts the holder and returns once it holds the lock.
    /// - Parameters:
    ///   - replacing: the token file to replace with `json` before letting go, if any.
    init(lockPath: String, seconds: Double, replacing path: String? = nil, with json: String = "") throws {
        let ready = lockPath + ".held-\(UUID().uuidString)"
        let script = """
            touch "$1"; sleep "$2"
            if [ -n "$3" ]; then printf '%s' "$4" > "$3.other" && mv "$3.other" "$3"; fi
            """
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["flock", "-x", lockPath, "/bin/sh", "-c", script, "holder", ready, "\(seconds)",
                             path ?? "", json]
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: ready) {
            guard process.isRunning, Date() < deadline else { throw CocoaError(.fileReadNoSuchFile) }
            usleep(5_000)
        }
        try? FileManager.default.removeItem(atPath: ready)
    }

    /// Waits for the holder to finish; its exit status.
    @discardableResult
    func waitUntilExit() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// A token file's JSON as the file store writes it.
    static func tokenJSON(access: String, refresh: String, expiresIn: Double) -> String {
        let now = Date().timeIntervalSince1970
        return #"{"access_token":"\#(access)","refresh_token":"\#(refresh)","expires_at":\#(now + expiresIn),"#
            + #""obtained_at":\#(now)}"#
    }
}
