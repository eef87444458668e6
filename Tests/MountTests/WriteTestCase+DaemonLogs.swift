import BoxTestSupport
import Foundation
import XCTest

/// Daemon logs of write tests: every mount logs to a file (its own `log_file=` if the test gave one), and a
/// failing test prints their ends, so a failure on CI explains itself.
extension WriteTestCase {
    /// `options` with a `log_file=` (a new temp file unless the options name one), remembered for `printDaemonLogs`.
    func withLogFile(_ options: [String]) throws -> [String] {
        if let given = options.first(where: { $0.hasPrefix("log_file=") }) {
            rememberDaemonLog(URL(fileURLWithPath: String(given.dropFirst("log_file=".count))))
            return options
        }
        let log = try makeTemporaryDirectory("boxfs-log").appendingPathComponent("boxfs.log")
        rememberDaemonLog(log)
        return options + ["log_file=\(log.path)"]
    }

    /// Prints the last lines of every mount's log.
    func printDaemonLogs(lines: Int = 60) {
        for log in daemonLogs {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? "(no log)"
            let tail = text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines)
            print("---- daemon log \(log.path) (last \(lines) lines) ----\n" + tail.joined(separator: "\n"))
        }
    }
}
