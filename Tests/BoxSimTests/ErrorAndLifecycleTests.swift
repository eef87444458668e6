import BoxTestSupport
import Foundation
import XCTest

/// Box's error shapes, the control API's request log, and restarts on the same data directory.
final class ErrorAndLifecycleTests: XCTestCase {
    func testBadOrMissingTokenGets401WithEmptyBodyAndWWWAuthenticate() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        for token in ["wrong-token", nil] {
            let result = try Curl.run(fixture.sim.baseURL + "/2.0/users/me", token: token)
            XCTAssertEqual(result.status, 401)
            XCTAssertTrue(result.body.isEmpty)
            XCTAssertEqual(result.headers["www-authenticate"], "Bearer realm=\"Service\", error=\"invalid_token\", "
                           + "error_description=\"The access token provided is invalid.\"")
        }
    }

    func testMissingItemGets404ClientErrorBody() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let result = try fixture.get("/2.0/files/123456789")
        XCTAssertEqual(result.status, 404)
        let body = try result.json()
        XCTAssertEqual(body["type"] as? String, "error")
        XCTAssertEqual(body["status"] as? Int, 404)
        XCTAssertEqual(body["code"] as? String, "not_found")
        XCTAssertNotNil(body["message"] as? String)
        XCTAssertNotNil(body["help_url"] as? String)
        XCTAssertFalse((body["request_id"] as? String ?? "").isEmpty)
        XCTAssertNotNil(result.headers["box-request-id"])
        XCTAssertEqual(try fixture.get("/2.0/folders/987654321").status, 404)
        let fileAsFolder = try fixture.get("/2.0/folders/\(try fixture.id(of: "hello.txt"))")
        XCTAssertEqual(fileAsFolder.status, 404)
    }

    func testMalformedInputNeverCrashes() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        XCTAssertEqual(try fixture.get("/2.0/files/abc").status, 405)
        XCTAssertEqual(try fixture.get("/2.0/folders/-1/items").status, 405)
        XCTAssertEqual(try fixture.get("/2.0/files/99999999999999999999999").status, 405)
        XCTAssertEqual(try fixture.get("/2.0/no/such/endpoint").status, 404)
        XCTAssertEqual(try fixture.get("/2.0/folders/0/items?limit=%ZZ").status, 400)
        XCTAssertEqual(try Curl.run(fixture.sim.baseURL + "/2.0/users/me", headers: ["Authorization": "Basic xyz"]).status,
                       401)
        XCTAssertTrue(fixture.sim.isRunning)
        XCTAssertEqual(try fixture.get("/2.0/users/me").status, 200)
    }

    func testControlAPIReadsAndClearsTheRequestLog() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        _ = try fixture.get("/2.0/users/me")
        let listed = try Curl.run(fixture.sim.baseURL + "/_control/requests")
        let entries = try XCTUnwrap(try listed.json()["entries"] as? [[String: Any]])
        XCTAssertEqual(entries.last?["path"] as? String, "/2.0/users/me")
        XCTAssertEqual(entries.last?["status"] as? Int, 200)
        XCTAssertEqual(try Curl.run(fixture.sim.baseURL + "/_control/requests", method: "DELETE").status, 204)
        XCTAssertEqual(try fixture.sim.requestLog(), [])
    }

    func testRestartOnSameDataDirectoryKeepsItemsAndDoesNotDuplicateSeed() async throws {
        let seed = try SeedTree.make(texts: ["keep/me.txt": "persisted\n", "top.txt": "top\n"])
        defer { try? FileManager.default.removeItem(at: seed) }
        let first = try await BoxSimProcess.start(seed: seed, keepDataDirectory: true)
        let data = first.dataDirectory
        defer { try? FileManager.default.removeItem(at: data.deletingLastPathComponent()) }
        let before = try Curl.run(first.baseURL + "/2.0/folders/0/items", token: first.developerToken).json()
        first.stop()
        XCTAssertFalse(first.isRunning)

        let second = try await BoxSimProcess.start(seed: seed, developerToken: "another-token", dataDirectory: data)
        defer { second.stop() }
        let after = try Curl.run(second.baseURL + "/2.0/folders/0/items", token: "another-token").json()
        XCTAssertEqual(after["total_count"] as? Int, 2)
        let ids = { (page: [String: Any]) in (page["entries"] as? [[String: Any]])?.compactMap { $0["id"] as? String } }
        XCTAssertEqual(ids(after), ids(before))
        XCTAssertEqual(try Curl.run(second.baseURL + "/2.0/users/me", token: first.developerToken).status, 200,
                       "tokens persist across restarts")
    }
}
