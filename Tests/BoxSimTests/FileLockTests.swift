import BoxTestSupport
import Foundation
import XCTest

/// File locks: `PUT /2.0/files/{id}` with `lock` / `{"lock": null}`, the `lock` field (Box's recorded shape),
/// LOCK_CREATE / LOCK_DESTROY, expiry, and what a lock refuses to everyone but its creator (403
/// `access_denied_item_locked`).
final class FileLockTests: XCTestCase {
    static let recordings = ["Files/LockFile.json"]

    func testLockAndUnlockAsBoxAnswers() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let id = try fixture.id(of: "hello.txt")
        let position = try fixture.streamPosition()
        let locked = try fixture.call("PUT", "/2.0/files/\(id)?fields=lock",
                                      json: ["lock": ["access": "lock", "is_download_prevented": false]])
        XCTAssertEqual(locked.status, 200, locked.text)
        try assertValid("put_files_id", locked)
        let shapes = ShapeComparison()
        try shapes.compare("Files/LockFile.json", locked, status: 200)
        shapes.assertClean()
        XCTAssertEqual(shapes.compared, Self.recordings)
        let lock = try XCTUnwrap(try locked.json()["lock"] as? [String: Any])
        XCTAssertEqual((lock["created_by"] as? [String: Any])?["id"] as? String,
                       try fixture.getJSON("/2.0/users/me")["id"] as? String)
        XCTAssertTrue(lock["expires_at"] is NSNull)
        XCTAssertNil(try fixture.getJSON("/2.0/files/\(id)")["lock"], "only with fields=lock")
        XCTAssertNotNil(try fixture.getJSON("/2.0/files/\(id)?fields=lock")["lock"] as? [String: Any])

        // The creator goes on changing the file.
        try fixture.uploadVersion(id, text: "mine\n")
        XCTAssertEqual(try fixture.call("PUT", "/2.0/files/\(id)", json: ["name": "h2.txt"]).status, 200)

        let unlocked = try fixture.call("PUT", "/2.0/files/\(id)?fields=lock", json: ["lock": nil])
        XCTAssertEqual(unlocked.status, 200, unlocked.text)
        try assertValid("put_files_id", unlocked)
        XCTAssertTrue(try unlocked.json()["lock"] is NSNull)
        XCTAssertEqual(try fixture.changes(after: position).map(\.type),
                       ["LOCK_CREATE", "ITEM_UPLOAD", "ITEM_RENAME", "LOCK_DESTROY"])
        let admin = try fixture.getJSON("/2.0/events?stream_type=admin_logs&event_type=LOCK,UNLOCK")
        XCTAssertEqual((admin["entries"] as? [[String: Any]])?.map { $0["event_type"] as? String }, ["LOCK", "UNLOCK"],
                       "Box's admin names")

        let soon = ISO8601DateFormatter().string(from: Date().addingTimeInterval(2))
        let expiring = try fixture.call("PUT", "/2.0/files/\(id)?fields=lock", json: ["lock": ["access": "lock", "expires_at": soon]])
        XCTAssertNotNil((try expiring.json()["lock"] as? [String: Any])?["expires_at"] as? String)
        try await Task.sleep(nanoseconds: 3_100_000_000)
        XCTAssertTrue(try fixture.getJSON("/2.0/files/\(id)?fields=lock")["lock"] is NSNull, "an expired lock is none")

        for bad in [["access": "open"], ["access": "lock", "expires_at": ISO8601DateFormatter().string(from: Date().addingTimeInterval(-60))]] {
            let refused = try fixture.call("PUT", "/2.0/files/\(id)", json: ["lock": bad])
            XCTAssertEqual(refused.status, 400, "\(bad): \(refused.text)")
            try assertValid("put_files_id", refused)
        }
        XCTAssertEqual(try fixture.call("PUT", "/2.0/folders/\(try fixture.id(of: "docs"))",
                                        json: ["lock": ["access": "lock"]]).status, 400, "folders are not locked")
    }

    func testALockRefusesChangesByOthers() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let (otherID, other) = try fixture.collaborator(on: try fixture.id(of: "docs"), role: "editor")
        let id = try fixture.id(of: "docs/a.txt")
        XCTAssertEqual(try fixture.call("PUT", "/2.0/files/\(id)",
                                        json: ["lock": ["access": "lock", "is_download_prevented": true]]).status, 200)
        for (what, result) in [
            ("new version", try fixture.uploadVersion(id, text: "theirs\n", token: other, expectStatus: 403)),
            ("rename", try fixture.call("PUT", "/2.0/files/\(id)", json: ["name": "x.txt"], token: other)),
            ("delete", try fixture.call("DELETE", "/2.0/files/\(id)", token: other)),
            ("unlock", try fixture.call("PUT", "/2.0/files/\(id)", json: ["lock": nil], token: other)),
            ("download", try fixture.call("GET", "/2.0/files/\(id)/content", token: other)),
            ("upload session", try fixture.call("POST", "/api/2.0/files/\(id)/upload_sessions",
                                                json: ["file_size": 20_000_001], token: other)),
        ] {
            XCTAssertEqual(result.status, 403, "\(what): \(result.text)")
            XCTAssertEqual(try result.json()["code"] as? String, "access_denied_item_locked", what)
            try assertValid("put_files_id", result)
        }
        XCTAssertEqual(try fixture.call("GET", "/2.0/files/\(id)", token: other).status, 200, "reading is fine")

        // Without is_download_prevented others may download; after unlocking they may change it.
        XCTAssertEqual(try fixture.call("PUT", "/2.0/files/\(id)", json: ["lock": ["access": "lock"]]).status, 200)
        XCTAssertEqual(try fixture.call("GET", "/2.0/files/\(id)/content", token: other).status, 302)
        XCTAssertEqual(try fixture.call("PUT", "/2.0/files/\(id)", json: ["lock": nil]).status, 200)
        try fixture.uploadVersion(id, text: "theirs\n", token: other)

        // A lock by the collaborator binds the owner too.
        let theirs = try fixture.call("PUT", "/2.0/files/\(id)?fields=lock", json: ["lock": ["access": "lock"]], token: other)
        XCTAssertEqual(((try theirs.json()["lock"] as? [String: Any])?["created_by"] as? [String: Any])?["id"] as? String,
                       otherID)
        XCTAssertEqual(try fixture.uploadVersion(id, text: "owner\n", expectStatus: 403).status, 403)
    }
}
