import BoxTestSupport
import Foundation
import XCTest

/// Folder create; rename, move and delete of folders and files; name rules, conflicts, If-Match.
final class ItemWriteTests: XCTestCase {
    func testCreateFolderAndCaseInsensitiveConflict() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let token = fixture.sim.developerToken
        let created = try fixture.postJSON("/2.0/folders", ["name": "New Folder", "parent": ["id": "0"]], token: token)
        XCTAssertEqual(created.status, 201, created.text)
        let folder = try created.json()
        XCTAssertEqual(folder["name"] as? String, "New Folder")
        XCTAssertEqual((folder["parent"] as? [String: Any])?["id"] as? String, "0")
        XCTAssertEqual(try fixture.id(of: "New Folder"), folder["id"] as? String)

        let clash = try fixture.postJSON("/2.0/folders", ["name": "new FOLDER", "parent": ["id": "0"]], token: token)
        XCTAssertEqual(clash.status, 409)
        let body = try clash.json()
        XCTAssertEqual(body["code"] as? String, "item_name_in_use")
        let conflicts = (body["context_info"] as? [String: Any])?["conflicts"] as? [[String: Any]]
        XCTAssertEqual(conflicts?.first?["id"] as? String, folder["id"] as? String)

        for bad in ["", "a/b", "back\\slash", "trailing ", ".", "..", String(repeating: "x", count: 256)] {
            let result = try fixture.postJSON("/2.0/folders", ["name": bad, "parent": ["id": "0"]], token: token)
            XCTAssertEqual(result.status, 400, "name \(bad.prefix(20))")
        }
        XCTAssertEqual(try fixture.postJSON("/2.0/folders", ["name": "x", "parent": ["id": "999999"]], token: token).status,
                       404)
        let malformed = try Curl.run(fixture.sim.baseURL + "/2.0/folders", token: token, method: "POST",
                                     extra: ["--data-binary", "{not json"])
        XCTAssertEqual(malformed.status, 400)
    }

    /// Box's name equality: case is ignored (beyond ASCII too), Unicode normalisation is not (a name is
    /// stored as sent, so precomposed and decomposed `é` are two names); renaming an item to another case
    /// of its own name is no conflict.
    func testNamesConflictRegardlessOfCaseButNotOfNormalisation() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let token = fixture.sim.developerToken
        let composed = try fixture.postJSON("/2.0/folders", ["name": "\u{E9}t\u{E9}", "parent": ["id": "0"]], token: token)
        XCTAssertEqual(composed.status, 201, composed.text)
        let upper = try fixture.postJSON("/2.0/folders", ["name": "\u{C9}T\u{C9}", "parent": ["id": "0"]], token: token)
        XCTAssertEqual(upper.status, 409, upper.text)
        XCTAssertEqual(try upper.json()["code"] as? String, "item_name_in_use")
        let decomposed = try fixture.postJSON("/2.0/folders", ["name": "e\u{301}te\u{301}", "parent": ["id": "0"]],
                                              token: token)
        XCTAssertEqual(decomposed.status, 201, decomposed.text)
        let name = try XCTUnwrap(try decomposed.json()["name"] as? String)
        XCTAssertEqual(Array(name.utf8), Array("e\u{301}te\u{301}".utf8), "stored exactly as sent")

        let id = try XCTUnwrap(try composed.json()["id"] as? String)
        let renamed = try fixture.postJSON("/2.0/folders/\(id)", ["name": "\u{C9}t\u{E9}"], token: token, method: "PUT")
        XCTAssertEqual(renamed.status, 200, renamed.text)
        XCTAssertEqual(try renamed.json()["name"] as? String, "\u{C9}t\u{E9}")
    }

    func testRenameAndMoveBumpEtagAndHonourIfMatch() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let token = fixture.sim.developerToken
        let fileID = try fixture.id(of: "docs/a.txt")
        let before = try fixture.getJSON("/2.0/files/\(fileID)")
        let etag = try XCTUnwrap(before["etag"] as? String)

        let stale = try fixture.postJSON("/2.0/files/\(fileID)", ["name": "renamed.txt"], token: token, method: "PUT")
        XCTAssertEqual(stale.status, 200, stale.text)
        let renamed = try stale.json()
        XCTAssertEqual(renamed["name"] as? String, "renamed.txt")
        XCTAssertNotEqual(renamed["etag"] as? String, etag)
        XCTAssertNotEqual(renamed["sequence_id"] as? String, before["sequence_id"] as? String)

        let precondition = try Curl.run(fixture.sim.baseURL + "/2.0/files/\(fileID)", token: token,
                                        headers: ["If-Match": etag, "Content-Type": "application/json"], method: "PUT",
                                        extra: ["--data-binary", "{\"name\":\"again.txt\"}"])
        XCTAssertEqual(precondition.status, 412)
        XCTAssertEqual(try precondition.json()["code"] as? String, "precondition_failed")

        let moved = try fixture.postJSON("/2.0/files/\(fileID)", ["parent": ["id": "0"]], token: token, method: "PUT")
        XCTAssertEqual((try moved.json()["parent"] as? [String: Any])?["id"] as? String, "0")
        XCTAssertEqual(try fixture.id(of: "renamed.txt"), fileID)

        let clash = try fixture.postJSON("/2.0/files/\(fileID)", ["name": "HELLO.txt"], token: token, method: "PUT")
        XCTAssertEqual(clash.status, 409)
        let conflict = (try clash.json()["context_info"] as? [String: Any])?["conflicts"] as? [String: Any]
        XCTAssertEqual(conflict?["id"] as? String, try fixture.id(of: "hello.txt"), "file conflicts are one object")

        let docsID = try fixture.id(of: "docs")
        let subID = try fixture.id(of: "docs/sub")
        let cycle = try fixture.postJSON("/2.0/folders/\(docsID)", ["parent": ["id": subID]], token: token, method: "PUT")
        XCTAssertEqual(cycle.status, 400)
        XCTAssertEqual(try cycle.json()["code"] as? String, "cyclical_folder_structure")
    }

    func testDeleteNeedsRecursiveForNonEmptyFolders() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let token = fixture.sim.developerToken
        let docsID = try fixture.id(of: "docs")
        let deepID = try fixture.id(of: "docs/sub/deep.txt")
        let refused = try Curl.run(fixture.sim.baseURL + "/2.0/folders/\(docsID)", token: token, method: "DELETE")
        XCTAssertEqual(refused.status, 400)
        XCTAssertEqual(try refused.json()["code"] as? String, "folder_not_empty")
        XCTAssertEqual(try Curl.run(fixture.sim.baseURL + "/2.0/folders/\(docsID)?recursive=True", token: token,
                                    method: "DELETE").status, 204)
        XCTAssertEqual(try fixture.get("/2.0/folders/\(docsID)").status, 404)
        XCTAssertEqual(try fixture.get("/2.0/files/\(deepID)").status, 404)
        let helloID = try fixture.id(of: "hello.txt")
        XCTAssertEqual(try Curl.run(fixture.sim.baseURL + "/2.0/files/\(helloID)", token: token, method: "DELETE").status,
                       204)
        let root = try fixture.getJSON("/2.0/folders/0/items")
        XCTAssertEqual((root["entries"] as? [[String: Any]])?.compactMap { $0["name"] as? String }, ["many", "big.bin"])
        XCTAssertEqual(try fixture.postJSON("/2.0/folders", ["name": "docs", "parent": ["id": "0"]], token: token).status,
                       201, "a trashed name can be reused")
    }
}
