import BoxTestSupport
import Foundation
import XCTest

/// Box's user stream as Box serves it (`/_control/event_faults`): events sent more than once or out of
/// chronological order (`duplicate_rate`, `out_of_order_rate`), and a stream position older than Box keeps events
/// (`expire`), which reads on from the oldest event kept.
final class EventStreamFaultTests: XCTestCase {
    private struct Entry: Equatable {
        var eventID: String
        var name: String
    }

    private func page(_ fixture: SimFixture, from position: Int) throws -> (entries: [Entry], next: Int) {
        let answer = try fixture.get("/2.0/events?stream_position=\(position)")
        XCTAssertEqual(answer.status, 200, answer.text)
        let json = try answer.json()
        let entries = (json["entries"] as? [[String: Any]] ?? []).map {
            Entry(eventID: $0["event_id"] as? String ?? "", name: ($0["source"] as? [String: Any])?["name"] as? String ?? "")
        }
        XCTAssertEqual(json["chunk_size"] as? Int, entries.count)
        return (entries, try XCTUnwrap(json["next_stream_position"] as? Int))
    }

    private func latest(_ fixture: SimFixture) throws -> Int {
        try XCTUnwrap(try fixture.getJSON("/2.0/events?stream_position=now")["next_stream_position"] as? Int)
    }

    private func makeFolders(_ fixture: SimFixture, _ names: [String]) throws {
        for name in names {
            XCTAssertEqual(try fixture.postJSON("/2.0/folders", ["name": name, "parent": ["id": "0"]],
                                                token: fixture.sim.developerToken).status, 201)
        }
    }

    private func setFaults(_ fixture: SimFixture, _ faults: [String: Any]) throws {
        let answer = try fixture.postJSON("/_control/event_faults", faults)
        XCTAssertEqual(answer.status, 200, answer.text)
    }

    func testDuplicatedEventsComeAgainInTheNextPageWithTheirEventIDs() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        XCTAssertEqual(try fixture.postJSON("/_control/settings", ["long_poll_timeout": 5], method: "PUT").status, 200)
        let start = try latest(fixture)
        try setFaults(fixture, ["duplicate_rate": 1])
        try makeFolders(fixture, ["a", "b", "c"])

        let first = try page(fixture, from: start)
        XCTAssertEqual(first.entries.map(\.name), ["a", "b", "c"])
        let servers = try Curl.run(fixture.sim.baseURL + "/2.0/events", token: fixture.sim.developerToken,
                                   method: "OPTIONS").json()
        let poll = try XCTUnwrap((servers["entries"] as? [[String: Any]])?.first?["url"] as? String)
        let woken = Date()
        XCTAssertEqual(try Curl.run(poll).json()["message"] as? String, "new_change", "owed events wake the long poll")
        XCTAssertLessThan(Date().timeIntervalSince(woken), 3)

        let second = try page(fixture, from: first.next)
        XCTAssertEqual(second.entries, first.entries, "each event again, with the same event_id")
        XCTAssertEqual(second.next, first.next, "the position does not move for events sent again")
        XCTAssertEqual(try page(fixture, from: second.next).entries, [], "sent twice, not forever")
    }

    func testEventsHeldBackComeAfterLaterEvents() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let start = try latest(fixture)
        try setFaults(fixture, ["out_of_order_rate": 1])
        try makeFolders(fixture, ["a", "b"])
        let first = try page(fixture, from: start)
        XCTAssertEqual(first.entries, [], "both held back")
        XCTAssertEqual(first.next, try latest(fixture), "the position passes them")

        try setFaults(fixture, ["out_of_order_rate": 0])
        try makeFolders(fixture, ["c"])
        let second = try page(fixture, from: first.next)
        XCTAssertEqual(second.entries.map(\.name), ["c", "a", "b"], "the held events after the later one")
        XCTAssertEqual(Set(second.entries.map(\.eventID)).count, 3)
        XCTAssertEqual(try page(fixture, from: second.next).entries, [])
    }

    /// Box keeps user events 21 days (`all`, `changes`; `sync` 31) and answers a position older than that with what
    /// it still has (box/box-java-sdk#123, #939): here, 200 and the oldest event kept onwards, nothing to say that
    /// events were missed.
    func testAPositionOlderThanTheEventsKeptReadsOnFromTheOldestEventKept() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let start = try latest(fixture)
        try makeFolders(fixture, ["old1", "old2"])
        XCTAssertEqual(try page(fixture, from: start).entries.map(\.name), ["old1", "old2"])
        try setFaults(fixture, ["expire": true])
        try makeFolders(fixture, ["new"])

        let stale = try page(fixture, from: start)
        XCTAssertEqual(stale.entries.map(\.name), ["new"], "the expired events are gone")
        XCTAssertEqual(stale.next, try latest(fixture))
        XCTAssertEqual(try page(fixture, from: 0).entries.map(\.name), ["new"], "0: every event kept")
        XCTAssertEqual(try page(fixture, from: stale.next).entries, [])
    }

    func testTheFaultsAreValidatedShownAndClearedButExpiryStays() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let shown = try fixture.getJSON("/_control/event_faults")
        XCTAssertEqual(shown["duplicate_rate"] as? Double, 0, "off by default")
        XCTAssertEqual(shown["out_of_order_rate"] as? Double, 0)
        XCTAssertEqual(shown["expired_through"] as? Int, 0)
        XCTAssertEqual(try fixture.postJSON("/_control/event_faults", ["duplicate_rate": 1.5]).status, 400)
        XCTAssertEqual(try fixture.postJSON("/_control/event_faults", ["out_of_order_rate": -0.1]).status, 400)
        XCTAssertEqual(try fixture.postJSON("/_control/event_faults", ["expire": false]).status, 400)
        try makeFolders(fixture, ["x"])
        try setFaults(fixture, ["duplicate_rate": 0.25, "expire": true])
        let set = try fixture.getJSON("/_control/event_faults")
        XCTAssertEqual(set["duplicate_rate"] as? Double, 0.25)
        let expired = try XCTUnwrap(set["expired_through"] as? Int)
        XCTAssertGreaterThan(expired, 0)
        XCTAssertEqual(try fixture.call("DELETE", "/_control/event_faults").status, 204)
        let cleared = try fixture.getJSON("/_control/event_faults")
        XCTAssertEqual(cleared["duplicate_rate"] as? Double, 0)
        XCTAssertEqual(cleared["expired_through"] as? Int, expired, "expired events stay gone")
    }
}
