import BoxTestSupport
import Foundation
import XCTest

/// `GET /2.0/events` `stream_type`: `all` carries downloads, `changes`/`sync` only tree changes; the admin streams
/// answer a non-admin as Box does (403, empty body, insufficient_scope) and give an admin the enterprise's events.
final class EventStreamTypeTests: XCTestCase {
    private func types(_ page: [String: Any]) -> [String] {
        (page["entries"] as? [[String: Any]] ?? []).compactMap { $0["event_type"] as? String }
    }

    func testAllCarriesDownloadsWhileChangesAndSyncDoNot() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let token = fixture.sim.developerToken
        let start = try XCTUnwrap(try fixture.getJSON("/2.0/events?stream_position=now")["next_stream_position"] as? Int)
        let helloID = try fixture.id(of: "hello.txt")
        XCTAssertEqual(try fixture.get("/2.0/files/\(helloID)/content").status, 302)
        XCTAssertEqual(try fixture.postJSON("/2.0/folders", ["name": "after", "parent": ["id": "0"]], token: token).status,
                       201)
        XCTAssertEqual(try fixture.get("/2.0/files/\(helloID)/content").status, 302)

        let all = try fixture.getJSON("/2.0/events?stream_position=\(start)")
        XCTAssertEqual(types(all), ["ITEM_DOWNLOAD", "ITEM_CREATE", "ITEM_DOWNLOAD"])
        XCTAssertEqual(types(try fixture.getJSON("/2.0/events?stream_position=\(start)&stream_type=all")), types(all))
        for stream in ["changes", "sync"] {
            let page = try fixture.getJSON("/2.0/events?stream_position=\(start)&stream_type=\(stream)")
            XCTAssertEqual(types(page), ["ITEM_CREATE"], stream)
            let next = try XCTUnwrap(page["next_stream_position"] as? Int)
            XCTAssertEqual(next, all["next_stream_position"] as? Int, "\(stream) moves past the downloads it skips")
            XCTAssertEqual(types(try fixture.getJSON("/2.0/events?stream_position=\(next)&stream_type=\(stream)")), [])
        }
        let firstChange = try fixture.getJSON("/2.0/events?stream_position=\(start)&stream_type=changes&limit=1")
        XCTAssertEqual(types(firstChange), ["ITEM_CREATE"], "a download before the change is skipped, not counted")
        let source = try XCTUnwrap((all["entries"] as? [[String: Any]])?.first?["source"] as? [String: Any])
        XCTAssertEqual(source["id"] as? String, helloID)
        XCTAssertEqual(try fixture.get("/2.0/events?stream_type=everything").status, 400)
    }

    func testAdminStreamsAnswerNonAdminsWithInsufficientScopeAndAdminsWithTheEnterprise() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let userID = try fixture.createUser()
        let issued = try fixture.postJSON("/_control/tokens", ["user_id": userID])
        let userToken = try XCTUnwrap(try issued.json()["access_token"] as? String)
        XCTAssertEqual(try fixture.postJSON("/2.0/folders", ["name": "by user", "parent": ["id": "0"]],
                                            token: userToken).status, 201)
        for stream in ["admin_logs", "admin_logs_streaming"] {
            let denied = try Curl.run(fixture.sim.baseURL + "/2.0/events?stream_type=\(stream)", token: userToken)
            XCTAssertEqual(denied.status, 403, stream)
            XCTAssertTrue(denied.body.isEmpty, "Box answers with an empty body")
            XCTAssertTrue(denied.headers["www-authenticate"]?.contains("error=\"insufficient_scope\"") ?? false)
        }
        XCTAssertEqual(try Curl.run(fixture.sim.baseURL + "/2.0/events?stream_type=changes", token: userToken).status,
                       200, "the user's own streams stay open to them")

        let helloID = try fixture.id(of: "hello.txt")
        XCTAssertEqual(try fixture.get("/2.0/files/\(helloID)/content").status, 302)
        let enterprise = try fixture.getJSON("/2.0/events?stream_type=admin_logs&stream_position=0")
        let entries = try XCTUnwrap(enterprise["entries"] as? [[String: Any]])
        XCTAssertEqual(types(enterprise), ["UPLOAD", "DOWNLOAD"], "Box's admin event names")
        XCTAssertEqual((entries.first?["created_by"] as? [String: Any])?["id"] as? String, userID)
        XCTAssertEqual(types(try fixture.getJSON("/2.0/events?stream_type=admin_logs&event_type=DOWNLOAD")), ["DOWNLOAD"])
        XCTAssertEqual(types(try fixture.getJSON("/2.0/events?stream_type=admin_logs&created_after=2999-01-01T00:00:00Z")),
                       [])
        XCTAssertEqual(types(try fixture.getJSON("/2.0/events?stream_type=admin_logs_streaming")), ["UPLOAD", "DOWNLOAD"])
        XCTAssertEqual(types(try fixture.getJSON("/2.0/events?stream_type=admin_logs&stream_position=now")), [])
    }
}
