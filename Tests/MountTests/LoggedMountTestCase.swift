import BoxTestSupport
import Foundation
import XCTest

/// A mount test whose one mount writes a daemon log, printed when the test fails, and whose temp folders go
/// once the mount is gone.
class LoggedMountTestCase: MountTestCase {
    /// The daemon log of this test's mount, printed when the test fails.
    var daemonLog: URL?
    /// Removed in `tearDown` once the mount is gone.
    var temporaryDirectories: [URL] = []

    /// A mount of boxsim (seeded with `seed`) whose daemon log is this test's `daemonLog`.
    func mountWithLog(seed: URL, options: [String] = []) async throws -> MountFixture {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("boxfs-log-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        temporaryDirectories.append(directory)
        let log = directory.appendingPathComponent("boxfs.log")
        daemonLog = log
        return try await mountBoxSim(seed: seed, options: options + ["log_file=\(log.path)"])
    }

    override func tearDown() async throws {
        mount?.unmount()
        if (testRun?.totalFailureCount ?? 0) > 0, let log = daemonLog {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? "(no log)"
            print("---- daemon log \(log.path) ----\n" + text.split(separator: "\n").suffix(60).joined(separator: "\n"))
        }
        try await super.tearDown()
        for url in temporaryDirectories { try? FileManager.default.removeItem(at: url) }
        temporaryDirectories = []
    }
}
