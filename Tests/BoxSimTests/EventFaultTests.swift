import BoxTestSupport
import Foundation
import XCTest

/// `/_control/event_faults`: events dropped (in no page, waking no long poll) or delayed (in no page and waking
/// no long poll until `delay_ms` after the change) while the stream itself answers as usual.
final class EventFaultTests: XCTestCase {
    private func entries(_ page: [String: Any]) -> [[String: Any]] { page["entries"] as? [[String: Any]] ?? [] }

    private func names(_ page: [String: Any]) -> [String] {
        entries(page).compactMap { ($0["source"] as? [String: Any])?["name"] as? String }
    }

    private func latest(_ fixture: SimFixture) throws -> Int {
        try XCTUnwrap(try fixture.getJSON("/2.0/events?stream_position=now")["next_stream_position"] as? Int)
    }

    private func makeFolder(_ fixture: SimFixture, _ name: String) throws {
        XCTAssertEqual(try fixture.postJSON("/2.0/folders", ["name": name, "parent": ["id": "0"]],
                                            token: fixture.sim.developerToken).status, 201)
    }

    /// `OPTIONS /2.0/events` (the channel starts at the latest visible position), then a long poll on it.
    private func longPollURL(_ fixture: SimFixture) throws -> String {
        let servers = try Curl.run(fixture.sim.baseURL + "/2.0/events", token: fixture.sim.developerToken,
                                   method: "OPTIONS").json()
        return try XCTUnwrap(entries(servers).first?["url"] as? String)
    }

    /// Sets the long poll's timeout and the event `faults`; answers the stream's position before them and a
    /// long-poll URL opened at it.
    private func prepare(_ fixture: SimFixture, longPoll: Int, faults: [String: Any]) throws -> (Int, String) {
        XCTAssertEqual(try fixture.postJSON("/_control/settings", ["long_poll_timeout": longPoll], method: "PUT").status,
                       200)
        let start = try latest(fixture)
        XCTAssertEqual(try fixture.postJSON("/_control/event_faults", faults).status, 200)
        return (start, try longPollURL(fixture))
    }

    private func longPoll(_ url: String) throws -> String? {
        try Curl.run(url).json()["message"] as? String
    }

    func testDroppedEventsAreInNoPageAndWakeNoLongPoll() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let (start, poll) = try prepare(fixture, longPoll: 2, faults: ["drop": 1])

        try makeFolder(fixture, "lost")
        XCTAssertEqual(try latest(fixture), start, "the stream does not move")
        XCTAssertEqual(try longPoll(poll), "reconnect", "not woken by a dropped event")
        XCTAssertEqual(try fixture.getJSON("/_control/event_faults")["drop_remaining"] as? Int, 0)

        try makeFolder(fixture, "kept")
        XCTAssertEqual(try longPoll(poll), "new_change")
        XCTAssertEqual(names(try fixture.getJSON("/2.0/events?stream_position=\(start)")), ["kept"])
        XCTAssertEqual(try fixture.postJSON("/_control/event_faults", ["drop": -1]).status, 400)
    }

    func testDelayedEventsShowAndWakeTheLongPollOnlyAfterTheDelay() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let (start, poll) = try prepare(fixture, longPoll: 10, faults: ["delay_ms": 1500])

        let changed = Date()
        try makeFolder(fixture, "late")
        let early = try fixture.getJSON("/2.0/events?stream_position=\(start)")
        XCTAssertEqual(names(early), [], "not in a page before the delay")
        XCTAssertEqual(early["next_stream_position"] as? Int, start, "the position does not pass it")
        XCTAssertEqual(try longPoll(poll), "new_change")
        let woken = Date().timeIntervalSince(changed)
        XCTAssertGreaterThanOrEqual(woken, 1.4, "the long poll is woken by the delayed event, not before")
        XCTAssertEqual(names(try fixture.getJSON("/2.0/events?stream_position=\(start)")), ["late"])

        XCTAssertEqual(try fixture.postJSON("/_control/event_faults", ["delay_ms": 0], method: "DELETE").status, 204)
        let cleared = try latest(fixture)
        try makeFolder(fixture, "at once")
        XCTAssertEqual(names(try fixture.getJSON("/2.0/events?stream_position=\(cleared)")), ["at once"])
    }

    /// A downscoped token limited to a folder, or holding item scopes only, may not read the user's stream
    /// (it tells of every item of the user): 403 insufficient_scope on `GET` and `OPTIONS /2.0/events`.
    func testTheStreamIsRefusedToATokenLimitedToAnItemOrToItemScopes() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let docs = try fixture.id(of: "docs")
        func exchange(_ fields: [String: String]) throws -> String {
            let result = try fixture.postForm("/oauth2/token", fields.merging([
                "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
                "subject_token": fixture.sim.developerToken,
                "subject_token_type": "urn:ietf:params:oauth:token-type:access_token",
            ]) { $1 })
            XCTAssertEqual(result.status, 200, result.text)
            return try XCTUnwrap(try result.json()["access_token"] as? String)
        }
        let refused = [
            "root_readonly on docs": try exchange(["scope": "root_readonly",
                                                   "resource": fixture.sim.baseURL + "/2.0/folders/\(docs)"]),
            "item_preview": try exchange(["scope": "item_preview base_explorer"]),
        ]
        for (what, token) in refused {
            for method in ["GET", "OPTIONS"] {
                let answer = try Curl.run(fixture.sim.baseURL + "/2.0/events?stream_position=now", token: token,
                                          method: method)
                XCTAssertEqual(answer.status, 403, "\(method) \(what)")
                XCTAssertTrue(answer.body.isEmpty, "Box answers scope failures with an empty body")
                XCTAssertTrue(answer.headers["www-authenticate"]?.contains("error=\"insufficient_scope\"") ?? false)
            }
        }
        let whole = try exchange(["scope": "root_readonly"])
        XCTAssertEqual(try Curl.run(fixture.sim.baseURL + "/2.0/events?stream_position=now", token: whole).status, 200,
                       "root_readonly over the whole account reads the stream")
    }
}
