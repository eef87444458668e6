import BoxAPI
import BoxTestSupport
import Foundation
import XCTest

/// The mount paces itself under Box's limits (docs/SEMANTICS.md "Box's rate limits"), against boxsim enforcing
/// the same small limits (`--box-limits`, docs/BOXSIM.md): no 429, the limit's floor, what a user waits on first.
final class PacingTests: EventStreamTestCase {
    /// 15 files with 10 uploads a minute: 10 go at once, the other 5 a window later; Box answers no 429, and
    /// meanwhile `boxfs status` says that the uploads wait for the limit and a listing is answered at once.
    func testACopyOverTheUploadLimitGetsNo429AndEndsAtTheLimitsFloor() async throws {
        try await startBoxSim(texts: ["other/x.txt": "x\n", "other/y.txt": "y\n"])
        try api.setBoxLimits(["uploads_per_minute": 10])
        let fixture = try mountWritable(options: ["uploads_per_minute=10"])
        let local = try makeTemporaryDirectory().appendingPathComponent("copy")
        try FileManager.default.createDirectory(at: local, withIntermediateDirectories: true)
        for index in 0..<15 {
            try Data("file \(index)\n".utf8).write(to: local.appendingPathComponent(String(format: "f%02d.txt", index)))
        }

        let started = Date()
        try succeed(["cp", "-r", local.path, fixture.path("copy")])
        let status = try await Poll.until("boxfs status to show the pace", timeout: 30, interval: 0.2) { () -> String? in
            let text = try self.succeed([try MountFixture.locateBinary().path, "status", fixture.mountpoint.path])
            return text.contains("uploads waiting for Box's rate limit (10 a minute)") ? text : nil
        }
        print("PacingTests: status while pacing:\n\(status)")
        let listingStarted = Date()
        XCTAssertEqual(try names(fixture, "other"), ["x.txt", "y.txt"])
        let listing = Date().timeIntervalSince(listingStarted)
        XCTAssertLessThan(listing, 2, "a listing waited behind the paced uploads")
        try await Poll.until("every upload on Box", timeout: 150, interval: 0.5) {
            (try self.statusJSON(fixture)["pending"] as? NSNumber)?.intValue == 0 ? true : nil
        }
        let took = Date().timeIntervalSince(started)
        let refusals = try api.boxLimitRefusals()
        print("PacingTests: 15 uploads at 10 a minute took \(String(format: "%.1f", took)) s (floor 60 s); listing while pacing \(String(format: "%.2f", listing)) s; 429s: \(refusals.refused)")
        XCTAssertEqual(refusals.refused, 0, "Box answered 429: \(refusals.exceeded)")
        XCTAssertEqual(try boxNames(in: "copy").count, 15)
        XCTAssertGreaterThan(took, 55, "more than 10 uploads within a minute")
        XCTAssertLessThan(took, 75, "slower than the limit's floor (60 s, and the pace's 1 s margin)")
    }

    /// The account's background calls (here another process's, taking from the shared bucket what background
    /// work may) leave the foreground reserve: a listing in the mount is answered at once, no 429.
    func testAListingGoesBeforeTheAccountsBackgroundCalls() async throws {
        let sim = try await startBoxSim(texts: ["other/x.txt": "x\n"])
        let userID = try XCTUnwrap(try api.call("GET", "/2.0/users/me")["id"] as? String)
        try api.setBoxLimits(["calls_per_minute": 40])
        let fixture = try mountWritable(options: ["calls_per_minute=40", "events=off"])
        XCTAssertEqual(try names(fixture).filter { !$0.hasPrefix(".") }, ["other"])

        let path = PacingStateFile.path(
            endpoint: sim.baseURL.hasSuffix("/") ? String(sim.baseURL.dropLast()) : sim.baseURL, userID: userID,
            environment: ProcessInfo.processInfo.environment)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path), "the mount's bucket is at \(path)")
        let other = try XCTUnwrap(PacingStateFile(path: path))
        var limits = PacingLimits.none
        limits[.callsPerMinute] = 40
        // Another process's background calls take every token they may, as fast as they are given.
        let background = Pacer(limits: limits, file: other)
        var drained = 0
        while drained < 100 {
            let taken = Task { try await background.acquire([.callsPerMinute], priority: .background) }
            let timer = Task { try await Task.sleep(nanoseconds: 300_000_000); taken.cancel() }
            guard (try? await taken.value) != nil else { break }
            timer.cancel()
            drained += 1
        }
        XCTAssertGreaterThan(drained, 20, "background work took what it may")
        let started = Date()
        XCTAssertEqual(try names(fixture, "other"), ["x.txt"])
        let listing = Date().timeIntervalSince(started)
        print("PacingTests: background took \(drained) calls; a listing then took \(String(format: "%.2f", listing)) s")
        XCTAssertLessThan(listing, 2, "the listing waited for the background's tokens to come back")
        XCTAssertEqual(try api.boxLimitRefusals().refused, 0)
    }

    /// Two mounts of one account, each allowed 30 calls a minute, list 36 folders between them: together they
    /// stay under the account's 30 (Box answers no 429), so the last listings wait for the window.
    func testTwoMountsOfOneAccountShareTheLimit() async throws {
        var texts: [String: String] = [:]
        for index in 0..<36 { texts["d\(index)/f.txt"] = "\(index)\n" }
        try await startBoxSim(texts: texts)
        try api.setBoxLimits(["calls_per_minute": 30])
        let first = try mountWritable(options: ["calls_per_minute=30", "events=off"])
        let second = try mountWithFreshCache(options: ["calls_per_minute=30", "events=off"])
        let started = Date()
        let script = """
            (for i in $(seq 0 17); do ls "$1/d$i"; done) > "$3/first" &
            (for i in $(seq 18 35); do ls "$2/d$i"; done) > "$3/second" &
            wait
            cat "$3/first" "$3/second"
            """
        let out = try makeTemporaryDirectory()
        let result = try Shell.run(
            ["bash", "-c", script, "pacing", first.mountpoint.path, second.mountpoint.path, out.path], timeout: 150)
        let took = Date().timeIntervalSince(started)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout.split(separator: "\n").count, 36)
        let refusals = try api.boxLimitRefusals()
        print("PacingTests: two mounts listed 36 folders at 30 calls a minute in \(String(format: "%.1f", took)) s; 429s: \(refusals.refused)")
        XCTAssertEqual(refusals.refused, 0, "the mounts together went over the account's limit: \(refusals.exceeded)")
        XCTAssertLessThan(took, 80)
    }
}
