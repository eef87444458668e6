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
    /// Also keeps whole copies of the daemon logs and boxsim's request log in `$BOXFS_KEEP_LOGS` (a folder)
    /// when that is set, for the soak and the tests whose failures need the whole story.
    func printDaemonLogs(lines: Int = 60) {
        let keep = ProcessInfo.processInfo.environment["BOXFS_KEEP_LOGS"].map { URL(fileURLWithPath: $0) }
        let stamp = "\(name.filter { $0.isLetter || $0.isNumber })-\(UUID().uuidString.prefix(8))"
        for (index, log) in daemonLogs.enumerated() {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? "(no log)"
            let tail = text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines)
            print("---- daemon log \(log.path) (last \(lines) lines) ----\n" + tail.joined(separator: "\n"))
            if let keep {
                try? FileManager.default.createDirectory(at: keep, withIntermediateDirectories: true)
                try? FileManager.default.copyItem(at: log, to: keep.appendingPathComponent("\(stamp)-boxfs-\(index).log"))
            }
        }
        if let keep, let sim = boxsim {
            try? FileManager.default.copyItem(at: sim.dataDirectory.appendingPathComponent("requests.jsonl"),
                                              to: keep.appendingPathComponent("\(stamp)-requests.jsonl"))
        }
    }
}
