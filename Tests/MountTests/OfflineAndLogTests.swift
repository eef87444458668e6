import BoxTestSupport
import Foundation
import XCTest

/// When Box cannot be reached the mount says so, once, in its log and in `boxfs status`; a background
/// daemon's log lands somewhere readable even without syslog; `-o debug` shows each HTTP request.
final class OfflineAndLogTests: WriteTestCase {
    private func log(_ url: URL) -> String { (try? String(contentsOf: url, encoding: .utf8)) ?? "" }

    /// Waits until `boxfs status` says the mount is offline.
    private func waitUntilOffline(_ fixture: MountFixture) async throws {
        let binary = try MountFixture.locateBinary().path
        try await Poll.until("the mount to notice Box is gone", timeout: 30, interval: 0.2) {
            try Shell.run([binary, "status", fixture.mountpoint.path]).stdout.contains("offline since ") ? true : nil
        }
    }

    func testUnreachableBoxIsLoggedOnceAndShownInStatusUntilItAnswersAgain() async throws {
        let sim = try await startBoxSim(texts: ["a.txt": "a\n", "sub/b.txt": "b\n", "sub2/c.txt": "c\n"])
        let fixture = try mountWritable()
        let logFile = try XCTUnwrap(daemonLogs.last)
        try api.addFault(["path_prefix": "/2.0/", "cut_after_bytes": 0])
        let failed = try Shell.run(["ls", fixture.path("sub")])
        XCTAssertNotEqual(failed.status, 0)
        XCTAssertTrue(failed.stderr.contains("Input/output error"), failed.stderr)
        XCTAssertNotEqual(try Shell.run(["ls", fixture.path("sub2")]).status, 0)
        let binary = try MountFixture.locateBinary().path
        let status = try succeed([binary, "status", fixture.mountpoint.path])
        XCTAssertTrue(status.contains("offline since "), status)
        let json = try succeed([binary, "status", "--json", fixture.mountpoint.path])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        XCTAssertNotNil(object["offline_since"] as? String, json)
        XCTAssertEqual(log(logFile).components(separatedBy: "Box is unreachable").count - 1, 1, log(logFile))

        try api.clearFaults()
        XCTAssertEqual(try succeed(["ls", fixture.path("sub")]), "b.txt\n")
        XCTAssertEqual(try succeed(["ls", fixture.path("sub2")]), "c.txt\n")
        XCTAssertFalse(try succeed([binary, "status", fixture.mountpoint.path]).contains("offline"))
        XCTAssertEqual(log(logFile).components(separatedBy: "Box answers again").count - 1, 1, log(logFile))
        _ = sim
    }

    /// Once the mount knows Box is out of reach (here the event stream's connection broke when boxsim stopped), a
    /// read of content not on this machine fails at once with EIO, not after the retry policy's waits (23 s before);
    /// what was read whole before still reads back byte-exact from the disk cache.
    func testWhileBoxIsKnownUnreachableAReadOfContentNotHereFailsAtOnce() async throws {
        let sim = try await startBoxSim(texts: ["read.txt": "read before\n", "never.txt": "never read\n"])
        let fixture = try mountWritable()
        XCTAssertEqual(try succeed(["ls", fixture.mountpoint.path]), "never.txt\nread.txt\n")
        XCTAssertEqual(try succeed(["cat", fixture.path("read.txt")]), "read before\n")
        sim.stop()
        try await waitUntilOffline(fixture)

        let started = Date()
        let failed = try Shell.run(["cat", fixture.path("never.txt")])
        let took = Date().timeIntervalSince(started)
        print("OfflineAndLogTests: a read of content not here, offline, failed after \(String(format: "%.2f", took)) s")
        XCTAssertNotEqual(failed.status, 0)
        XCTAssertTrue(failed.stderr.contains("Input/output error"), failed.stderr)
        XCTAssertLessThan(took, 3, "failed at once, not after the retry policy's waits")
        XCTAssertEqual(try succeed(["cat", fixture.path("read.txt")]), "read before\n", "read whole before: from the cache")
    }

    /// While Box is known to be out of reach, a new file in a folder already listed is accepted at once and waits in
    /// the journal; it goes up once Box answers again.
    func testWhileBoxIsKnownUnreachableANewFileIsAcceptedAtOnceAndGoesUpLater() async throws {
        let (sim, data) = try await startBoxSimKeepingItsData(texts: ["docs/a.txt": "a\n"])
        let fixture = try mountWritable()
        XCTAssertEqual(try succeed(["ls", fixture.path("docs")]), "a.txt\n")
        sim.stop()
        try await waitUntilOffline(fixture)
        let started = Date()
        let written = try Shell.run(["sh", "-c", "echo new > '\(fixture.path("docs/new.txt"))'"])
        let took = Date().timeIntervalSince(started)
        print("OfflineAndLogTests: a new file written offline returned after \(String(format: "%.2f", took)) s")
        XCTAssertEqual(written.status, 0, written.stderr)
        XCTAssertLessThan(took, 3, "accepted at once")
        XCTAssertEqual(try succeed(["cat", fixture.path("docs/new.txt")]), "new\n")
        let status = try succeed([try MountFixture.locateBinary().path, "status", fixture.mountpoint.path])
        XCTAssertTrue(status.contains(", 1 change waiting: "), status)

        // Box again, on the same data and address: the file goes up without anyone asking.
        try await restartBoxSim(sim, on: data)
        try await Poll.until("new.txt on Box", timeout: 90, interval: 0.5) {
            try self.api.entry(at: "docs/new.txt") != nil ? true : nil
        }
    }

    /// An upload that failed while Box was out of reach waits out its backoff (1 s doubling, up to 5 minutes); once
    /// Box answers again, which the event stream's tries notice within a few seconds, it is tried at once: it reaches
    /// Box before the try its backoff had scheduled (read from `boxfs status`).
    func testWhenBoxAnswersAgainTheWaitingUploadsAreTriedAtOnce() async throws {
        let (sim, data) = try await startBoxSimKeepingItsData(texts: ["a.txt": "a\n"])
        let fixture = try mountWritable()
        XCTAssertEqual(try succeed(["ls", fixture.mountpoint.path]), "a.txt\n")
        sim.stop()
        try await waitUntilOffline(fixture)
        try succeed(["sh", "-c", "echo waiting > '\(fixture.path("w.txt"))'"])
        // Wait until the upload's next try is at least 8 s away (its backoff grows as its tries fail).
        let nextTry = try await Poll.until("a try of w.txt 8 s away", timeout: 90, interval: 0.5) { () -> Date? in
            let uploads = try self.statusJSON(fixture)["uploads"] as? [[String: Any]] ?? []
            let next = (uploads.first?["next_attempt"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) }
            return next.flatMap { $0.timeIntervalSinceNow >= 8 ? $0 : nil }
        }

        let restarted = Date()
        try await restartBoxSim(sim, on: data)
        try await Poll.until("w.txt on Box", timeout: 60, interval: 0.2) { try self.api.entry(at: "w.txt") }
        let landed = Date()
        print("OfflineAndLogTests: a waiting upload reached Box \(String(format: "%.1f", landed.timeIntervalSince(restarted))) s after Box came back; its backoff's next try was \(String(format: "%.1f", nextTry.timeIntervalSince(restarted))) s after")
        XCTAssertLessThan(landed, nextTry, "tried when Box answered again, not when its backoff ran out")
    }

    func testWithoutSyslogABackgroundDaemonLogsToAFileUnderCacheDirThatStatusNames() async throws {
        var device = stat()
        if stat("/dev/log", &device) == 0 { throw XCTSkip("this machine has syslog at /dev/log") }
        let sim = try await startBoxSim(texts: ["a.txt": "a\n"])
        let cache = try makeTemporaryDirectory("boxfs-logcache")
        let fixture = try MountFixture.mount(sim, options: ["cache_dir=\(cache.path)"])
        defer { fixture.unmount() }
        let name = fixture.mountpoint.path.split(separator: "/").joined(separator: "-") + ".log"
        let logFile = cache.appendingPathComponent("logs").appendingPathComponent(name)
        try await Poll.until("the log says the mount is ready", timeout: 20) { () -> Bool? in
            log(logFile).contains("mounted box: on \(fixture.mountpoint.path)") ? true : nil
        }
        let status = try succeed([try MountFixture.locateBinary().path, "status", fixture.mountpoint.path])
        XCTAssertTrue(status.contains("log: \(logFile.path)"), status)
    }

    func testDebugLogsEachHTTPRequestWithoutSecrets() async throws {
        let sim = try await startBoxSim(texts: ["a.txt": "a\n"])
        let fixture = try mountWritable(options: ["debug"])
        XCTAssertEqual(try succeed(["cat", fixture.path("a.txt")]), "a\n")
        let text = log(try XCTUnwrap(daemonLogs.last))
        XCTAssertTrue(
            text.range(of: #"GET /2\.0/folders/0/items 200 \d+ ms"#, options: .regularExpression) != nil, text)
        XCTAssertTrue(text.range(of: #"GET <download location> 20[06] \d+ ms"#, options: .regularExpression) != nil, text)
        XCTAssertFalse(text.contains(sim.developerToken), "no token in the log")
        XCTAssertFalse(text.contains("/dl/"), "no pre-signed download URL in the log")
    }
}
