import BoxTestSupport
import Foundation
import XCTest

/// When Box's event stream fails, the mount falls back to `dir_cache_ttl` and says so in `boxfs status`; once
/// the stream answers again it follows it again (docs/SEMANTICS.md "Changes made elsewhere").
final class EventFallbackTests: EventStreamTestCase {
    func testAFailingStreamFallsBackToDirCacheTTLAndIsFollowedAgainOnceBack() async throws {
        try await startBoxSim(texts: ["a.txt": "a\n"])
        try api.setLongPollTimeout(2)
        let fixture = try mountWritable(options: ["dir_cache_ttl=3"])
        try await waitUntilFollowing(fixture)
        XCTAssertEqual(try names(fixture), ["a.txt"])

        try api.addFault(["path_prefix": "/2.0/events", "error_status": 500])
        try api.addFault(["path_prefix": "/subscribe", "error_status": 500])

        // The long poll in flight ends within long_poll_timeout; asking for the next one fails.
        try await Poll.until("the fallback in boxfs status", timeout: 20, interval: 0.2) {
            try self.eventsLine(fixture).contains("listed again every dir_cache_ttl") ? true : nil
        }
        let fallback = try eventsLine(fixture)
        XCTAssertTrue(fallback.contains("event stream:"), fallback)
        XCTAssertEqual(try statusJSON(fixture)["events"] as? String, "fallback")
        XCTAssertEqual(try names(fixture), ["a.txt"])

        try api.uploadFile(named: "b.txt", text: "b\n")
        let changed = Date()
        try await Poll.until("b.txt after dir_cache_ttl", timeout: 3 + 2, interval: 0.2) {
            try self.names(fixture) == ["a.txt", "b.txt"] ? true : nil
        }
        print("EventFallbackTests: a change shows after \(String(format: "%.1f", Date().timeIntervalSince(changed))) s in fallback")

        try api.clearFaults()
        let cleared = Date()
        try await waitUntilFollowing(fixture, timeout: 25)
        print("EventFallbackTests: following again \(String(format: "%.1f", Date().timeIntervalSince(cleared))) s after the faults were cleared")
        XCTAssertEqual(try statusJSON(fixture)["events"] as? String, "following")
    }

    /// A token Box refuses the stream to (403, as a downscoped token may be): the mount stays on dir_cache_ttl,
    /// says so once in the log and in `boxfs status`, and asks again only every 15 minutes, not at every backoff.
    func testAStreamRefusedToTheTokenIsAskedForRarelyAndLoggedOnce() async throws {
        try await startBoxSim(texts: ["a.txt": "a\n"])
        try api.addFault(["path_prefix": "/2.0/events", "error_status": 403, "error_code": "access_denied_insufficient_permissions"])
        let fixture = try mountWritable(options: ["dir_cache_ttl=2"])
        try await Poll.until("the fallback in boxfs status", timeout: 10, interval: 0.2) {
            try self.statusJSON(fixture)["events"] as? String == "fallback" ? true : nil
        }
        let line = try eventsLine(fixture)
        XCTAssertTrue(line.contains("403"), line)
        try api.uploadFile(named: "b.txt", text: "b\n")
        try await Poll.until("b.txt after dir_cache_ttl", timeout: 6, interval: 0.2) {
            try self.names(fixture) == ["a.txt", "b.txt"] ? true : nil
        }
        try await Task.sleep(nanoseconds: 8_000_000_000)
        let asked = try requests().filter { $0.path == "/2.0/events" }
        XCTAssertLessThanOrEqual(asked.count, 2, "asked at the start only, not at every backoff: \(asked.map(\.seq))")
        let log = try String(contentsOf: try XCTUnwrap(daemonLogs.last), encoding: .utf8)
        let lines = log.split(separator: "\n").filter { $0.contains("event stream refused for this token") }
        XCTAssertEqual(lines.count, 1, log)
    }
}
