import BoxTestSupport
import Foundation
import XCTest

/// Events Box loses or sends late while its stream stays healthy (boxsim's `/_control/event_faults`): the mount
/// cannot tell, so it keeps trusting its listings (docs/SEMANTICS.md "Changes made elsewhere").
final class EventLossTests: EventStreamTestCase {
    /// boxsim holding `a.txt` (long polls answer `reconnect` after `longPoll` s) and a mount following its
    /// events, the root listed.
    private func followingMount(longPoll: Int, ttl: Int) async throws -> MountFixture {
        try await startBoxSim(texts: ["a.txt": "a\n"])
        try api.setLongPollTimeout(longPoll)
        let fixture = try mountWritable(options: ["dir_cache_ttl=\(ttl)"])
        try await waitUntilFollowing(fixture)
        XCTAssertEqual(try names(fixture), ["a.txt"])
        return fixture
    }

    /// A lost event: the change is not listed after `dir_cache_ttl` (the stream is followed, so listings are
    /// trusted up to 15 minutes and the folder is not listed again); `boxfs refresh` shows it, and the next
    /// change's event arrives as usual.
    func testAChangeWhoseEventIsLostShowsAfterARefreshNotAfterDirCacheTTL() async throws {
        let fixture = try await followingMount(longPoll: 2, ttl: 2)
        try api.setEventFaults(drop: 1)
        let before = try requests().last?.seq ?? 0

        try api.uploadFile(named: "b.txt", text: "b\n")
        try await Task.sleep(nanoseconds: 5_000_000_000)  // dir_cache_ttl twice over, and then some
        XCTAssertEqual(try names(fixture), ["a.txt"], "no event, and listings are trusted while the stream is followed")
        XCTAssertEqual(try statusJSON(fixture)["events"] as? String, "following", "the mount sees nothing wrong")
        let listings = try requests().filter { $0.seq > before && Self.isListing($0, folderID: "0") }
        XCTAssertEqual(listings.count, 0, "the root is not listed again: \(listings.map(\.seq))")

        let refresh = try Shell.run([try MountFixture.locateBinary().path, "refresh", fixture.mountpoint.path])
        XCTAssertEqual(refresh.status, 0, refresh.stderr)
        XCTAssertEqual(try names(fixture), ["a.txt", "b.txt"])

        try api.uploadFile(named: "c.txt", text: "c\n")
        try await Poll.until("c.txt through its event", timeout: 3, interval: 0.1) {
            try self.names(fixture) == ["a.txt", "b.txt", "c.txt"] ? true : nil
        }
    }

    /// A stream position Box refuses (400, as for a position it no longer has): the mount starts again at `now` and
    /// drops every cached listing, so a change whose event was lost before shows too (docs/SEMANTICS.md "Changes
    /// made elsewhere"). Without the restart the refusal is a failure like any other, the listing is kept, and only
    /// the change whose event comes later shows.
    func testAPositionBoxRefusesRestartsAtNowAndListsEveryFolderAgain() async throws {
        try await startBoxSim(texts: ["a.txt": "a\n", "sub/s.txt": "s\n"])
        try api.setLongPollTimeout(2)
        let fixture = try mountWritable(options: ["dir_cache_ttl=60"])
        try await waitUntilFollowing(fixture)
        XCTAssertEqual(try names(fixture, "sub"), ["s.txt"])
        let sub = try XCTUnwrap(try api.entry(at: "sub"))
        try api.setEventFaults(drop: 1)
        try api.uploadFile(named: "b.txt", text: "b\n", parentID: sub.id)  // its event is lost
        try await Task.sleep(nanoseconds: 1_000_000_000)
        XCTAssertEqual(try names(fixture, "sub"), ["s.txt"])
        let before = try requests().last?.seq ?? 0
        try api.addFault(["path_prefix": "/2.0/events", "method": "GET", "error_status": 400, "error_rate": 1, "count": 1])

        // In the root: wakes the long poll, and the fetch that follows is refused.
        try api.uploadFile(named: "c.txt", text: "c\n")
        try await Poll.until("sub listed again", timeout: 8, interval: 0.1) {
            try self.names(fixture, "sub") == ["b.txt", "s.txt"] ? true : nil
        }
        XCTAssertEqual(try names(fixture), ["a.txt", "c.txt", "sub"])
        let events = try requests().filter { $0.seq > before && $0.path == "/2.0/events" && $0.method == "GET" }
        let refused = try XCTUnwrap(events.firstIndex { $0.status == 400 }, "\(events.map { ($0.query ?? "", $0.status) })")
        XCTAssertTrue(events[(refused + 1)...].contains { $0.query?.contains("stream_position=now") == true },
                      "the stream starts again at now: \(events.map { $0.query ?? "" })")
        XCTAssertEqual(try statusJSON(fixture)["events"] as? String, "following")
    }

    /// A late event: the change shows once its event arrives, not before, and the folder is not listed again
    /// before then (`dir_cache_ttl` is 60 s: only the event can bring it).
    func testAChangeWhoseEventIsLateShowsOnceTheEventArrives() async throws {
        let fixture = try await followingMount(longPoll: 5, ttl: 60)
        let delay = 3.0
        try api.setEventFaults(delayMilliseconds: Int(delay * 1000))
        let before = try requests().last?.seq ?? 0

        let changed = Date()
        try api.uploadFile(named: "b.txt", text: "b\n")
        try await Task.sleep(nanoseconds: 1_500_000_000)
        XCTAssertEqual(try names(fixture), ["a.txt"], "not before its event")
        let early = try requests().filter { $0.seq > before && Self.isListing($0, folderID: "0") }
        XCTAssertEqual(early.count, 0, "no listing before the event: \(early.map(\.seq))")

        try await Poll.until("b.txt once its event arrives", timeout: delay + 3, interval: 0.1) {
            try self.names(fixture) == ["a.txt", "b.txt"] ? true : nil
        }
        let shown = Date().timeIntervalSince(changed)
        print("EventLossTests: a change whose event is \(delay) s late shows after \(String(format: "%.2f", shown)) s")
        XCTAssertGreaterThanOrEqual(shown, delay - 0.5, "shown through the event, not before it")
        let log = try requests().filter { $0.seq > before }
        let firstEvents = try XCTUnwrap(log.first { $0.path == "/2.0/events" && $0.status == 200 }?.seq)
        let listings = log.filter { Self.isListing($0, folderID: "0") }
        XCTAssertTrue(listings.allSatisfy { $0.seq > firstEvents }, "listed only after the event was read")
    }
}
