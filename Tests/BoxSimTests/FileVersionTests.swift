import BoxTestSupport
import Foundation
import XCTest

/// File versions: the past-versions list (newest first, paging, fields), one version, download of a past
/// version, promote (a copy of the old version becomes current, ITEM_MAKE_CURRENT_VERSION), delete to the
/// version trash and restore; every body validated against the spec.
final class FileVersionTests: XCTestCase {
    func testPastVersionsAreListedNewestFirstAndDownloadable() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let id = try fixture.id(of: "hello.txt")
        try fixture.uploadVersion(id, text: "second\n")
        try fixture.uploadVersion(id, text: "third\n")
        let listed = try fixture.get("/2.0/files/\(id)/versions")
        XCTAssertEqual(listed.status, 200, listed.text)
        try assertValid("get_files_id_versions", listed)
        let page = try listed.json()
        XCTAssertEqual(page["total_count"] as? Int, 2, "the current version is not a past version")
        let entries = try XCTUnwrap(page["entries"] as? [[String: Any]])
        XCTAssertEqual(entries.map { $0["sha1"] as? String }, [try sha1("second\n"), try sha1("hello world\n")])
        XCTAssertEqual(entries.map { $0["version_number"] as? String }, ["2", "1"])
        XCTAssertEqual(entries.first?["name"] as? String, "hello.txt")
        XCTAssertNil(entries.first?["trashed_by"] as Any?, "unset users are left out (User--Mini is not nullable)")
        XCTAssertEqual((entries.first?["modified_by"] as? [String: Any])?["type"] as? String, "user")
        XCTAssertEqual(try fixture.getJSON("/2.0/files/\(id)?fields=version_number")["version_number"] as? String, "3")

        let second = try fixture.getJSON("/2.0/files/\(id)/versions?offset=1&limit=1")
        XCTAssertEqual((second["entries"] as? [[String: Any]])?.map { $0["sha1"] as? String }, [try sha1("hello world\n")])
        XCTAssertEqual(second["limit"] as? Int, 1)
        let trimmed = try fixture.getJSON("/2.0/files/\(id)/versions?fields=size")
        XCTAssertEqual((trimmed["entries"] as? [[String: Any]])?.first.map { Set($0.keys) }, ["type", "id", "size"])
        XCTAssertEqual(try fixture.get("/2.0/files/\(id)/versions?offset=10001").status, 400)

        let firstID = try XCTUnwrap(entries.last?["id"] as? String)
        let one = try fixture.get("/2.0/files/\(id)/versions/\(firstID)")
        try assertValid("get_files_id_versions_id", one)
        XCTAssertEqual(try one.json()["sha1"] as? String, try sha1("hello world\n"))
        XCTAssertEqual(try fixture.get("/2.0/files/\(id)/versions/123").status, 404)
        let old = try Curl.run(fixture.sim.baseURL + "/2.0/files/\(id)/content?version=\(firstID)",
                               token: fixture.sim.developerToken, extra: ["-L"])
        XCTAssertEqual(old.text, "hello world\n")
    }

    func testPromoteCopiesTheOldVersionToTheTop() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let id = try fixture.id(of: "hello.txt")
        try fixture.uploadVersion(id, text: "second\n")
        let before = try fixture.getJSON("/2.0/files/\(id)")
        let oldID = try XCTUnwrap((try fixture.getJSON("/2.0/files/\(id)/versions")["entries"] as? [[String: Any]])?
            .first?["id"] as? String)
        let position = try fixture.streamPosition()
        let promoted = try fixture.call("POST", "/2.0/files/\(id)/versions/current", json: ["type": "file_version", "id": oldID])
        XCTAssertEqual(promoted.status, 201, promoted.text)
        try assertValid("post_files_id_versions_current", promoted)
        let newVersion = try promoted.json()
        XCTAssertNotEqual(newVersion["id"] as? String, oldID, "a new version, not the old one moved")
        XCTAssertEqual(newVersion["sha1"] as? String, try sha1("hello world\n"))
        XCTAssertEqual(newVersion["version_number"] as? String, "3")
        let after = try fixture.getJSON("/2.0/files/\(id)")
        XCTAssertEqual((after["file_version"] as? [String: Any])?["id"] as? String, newVersion["id"] as? String)
        XCTAssertEqual(after["sha1"] as? String, try sha1("hello world\n"))
        XCTAssertNotEqual(after["etag"] as? String, before["etag"] as? String)
        let current = try Curl.run(fixture.sim.baseURL + "/2.0/files/\(id)/content", token: fixture.sim.developerToken,
                                   extra: ["-L"])
        XCTAssertEqual(current.text, "hello world\n")
        XCTAssertEqual(try fixture.getJSON("/2.0/files/\(id)/versions")["total_count"] as? Int, 2)
        XCTAssertEqual(try fixture.changes(after: position).map(\.type), ["ITEM_MAKE_CURRENT_VERSION"])
        XCTAssertEqual(try fixture.changes(after: position).first?.id, id)

        XCTAssertEqual(try fixture.call("POST", "/2.0/files/\(id)/versions/current", json: ["id": "1"]).status, 404)
        let bad = try fixture.call("POST", "/2.0/files/\(id)/versions/current", json: ["type": "file"])
        XCTAssertEqual(bad.status, 400)
        try assertValid("post_files_id_versions_current", bad)
    }

    func testDeleteMovesAPastVersionToTheTrashAndRestoreBringsItBack() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let id = try fixture.id(of: "hello.txt")
        try fixture.uploadVersion(id, text: "second\n")
        let file = try fixture.getJSON("/2.0/files/\(id)")
        let currentID = try XCTUnwrap((file["file_version"] as? [String: Any])?["id"] as? String)
        let oldID = try XCTUnwrap((try fixture.getJSON("/2.0/files/\(id)/versions")["entries"] as? [[String: Any]])?
            .first?["id"] as? String)

        let stale = try fixture.call("DELETE", "/2.0/files/\(id)/versions/\(oldID)", headers: ["If-Match": "\"999\""])
        XCTAssertEqual(stale.status, 412)
        let current = try fixture.call("DELETE", "/2.0/files/\(id)/versions/\(currentID)")
        XCTAssertEqual(current.status, 400, "only past versions can be deleted")
        try assertValid("delete_files_id_versions_id", current)
        XCTAssertEqual(try fixture.call("DELETE", "/2.0/files/\(id)/versions/\(oldID)",
                                        headers: ["If-Match": file["etag"] as! String]).status, 204)
        let trashed = try fixture.getJSON("/2.0/files/\(id)/versions/\(oldID)")
        XCTAssertNotNil(trashed["trashed_at"] as? String)
        XCTAssertEqual((trashed["trashed_by"] as? [String: Any])?["id"] as? String,
                       try fixture.getJSON("/2.0/users/me")["id"] as? String)
        XCTAssertEqual(try fixture.getJSON("/2.0/files/\(id)/versions")["total_count"] as? Int, 1,
                       "a trashed version stays listed")
        XCTAssertEqual(try fixture.call("DELETE", "/2.0/files/\(id)/versions/\(oldID)").status, 404)
        XCTAssertEqual(try fixture.call("POST", "/2.0/files/\(id)/versions/current", json: ["id": oldID]).status, 404,
                       "a trashed version cannot be promoted")

        let restored = try fixture.call("PUT", "/2.0/files/\(id)/versions/\(oldID)", json: ["trashed_at": nil])
        XCTAssertEqual(restored.status, 200, restored.text)
        try assertValid("put_files_id_versions_id", restored)
        XCTAssertTrue(try restored.json()["trashed_at"] is NSNull)
        XCTAssertNotNil(try restored.json()["restored_at"] as? String)
        XCTAssertEqual(try fixture.call("POST", "/2.0/files/\(id)/versions/current", json: ["id": oldID]).status, 201)
    }

    private func sha1(_ text: String) throws -> String {
        let file = try SimFixture.textFile(text)
        defer { try? FileManager.default.removeItem(at: file) }
        return try Curl.sha1(of: file)
    }
}
