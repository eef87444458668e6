import BoxTestSupport
import Foundation
import XCTest

/// The trash: what a user deleted directly is listed (folders first, paging, fields, markers) and shown; what
/// went with a folder is not on its own; restore brings back what went with it (not what was deleted before),
/// to the old parent or the given one, refusing a taken name; purge removes it for good.
final class TrashTests: XCTestCase {
    func testDeletedItemsAreListedAndShownInTheTrash() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let docsID = try fixture.id(of: "docs")
        let helloID = try fixture.id(of: "hello.txt")
        let innerID = try fixture.id(of: "docs/a.txt")
        XCTAssertEqual(try fixture.call("DELETE", "/2.0/folders/\(docsID)?recursive=true").status, 204)
        XCTAssertEqual(try fixture.call("DELETE", "/2.0/files/\(helloID)").status, 204)

        let listed = try fixture.get("/2.0/folders/trash/items")
        XCTAssertEqual(listed.status, 200, listed.text)
        try assertValid("get_folders_trash_items", listed)
        XCTAssertEqual(try listed.json()["total_count"] as? Int, 2, "docs/a.txt went with docs: not listed")
        XCTAssertEqual((try listed.json()["entries"] as? [[String: Any]])?.map { $0["id"] as? String }, [docsID, helloID])
        let fields = try fixture.getJSON("/2.0/folders/trash/items?fields=name,trashed_at&limit=1&offset=1")
        let entry = try XCTUnwrap((fields["entries"] as? [[String: Any]])?.first)
        XCTAssertEqual(entry["name"] as? String, "hello.txt")
        XCTAssertNotNil(entry["trashed_at"] as? String)

        let first = try fixture.getJSON("/2.0/folders/trash/items?usemarker=true&limit=1")
        let marker = try XCTUnwrap(first["next_marker"] as? String)
        let second = try fixture.get("/2.0/folders/trash/items?usemarker=true&limit=1&marker=\(marker)")
        try assertValid("get_folders_trash_items", second)
        XCTAssertEqual((try second.json()["entries"] as? [[String: Any]])?.map { $0["id"] as? String }, [helloID])
        XCTAssertTrue(try second.json()["next_marker"] is NSNull)

        let folder = try fixture.get("/2.0/folders/\(docsID)/trash")
        XCTAssertEqual(folder.status, 200, folder.text)
        try assertValid("get_folders_id_trash", folder)
        XCTAssertEqual(try folder.json()["item_status"] as? String, "trashed")
        XCTAssertEqual(((try folder.json()["path_collection"] as? [String: Any])?["entries"] as? [[String: Any]])?
            .map { $0["name"] as? String }, ["Trash"])
        let file = try fixture.get("/2.0/files/\(helloID)/trash")
        try assertValid("get_files_id_trash", file)
        XCTAssertNotNil(try file.json()["trashed_at"] as? String)
        let inner = try fixture.get("/2.0/files/\(innerID)/trash")
        XCTAssertEqual(inner.status, 404, "only the folder it went with is in the trash on its own")
        try assertValid("get_files_id_trash", inner)
        XCTAssertEqual(try fixture.get("/2.0/files/\(try fixture.id(of: "big.bin"))/trash").status, 404, "not trashed")
        XCTAssertEqual(try fixture.get("/2.0/folders/\(helloID)/trash").status, 404, "a file is not a folder")
    }

    func testRestoreBringsBackWhatWentWithItToTheOldOrTheGivenParent() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let docsID = try fixture.id(of: "docs")
        let aID = try fixture.id(of: "docs/a.txt")
        let deepID = try fixture.id(of: "docs/sub/deep.txt")
        XCTAssertEqual(try fixture.call("DELETE", "/2.0/files/\(aID)").status, 204)
        XCTAssertEqual(try fixture.call("DELETE", "/2.0/folders/\(docsID)?recursive=true").status, 204)
        let position = try fixture.streamPosition()

        let restored = try fixture.call("POST", "/2.0/folders/\(docsID)", json: [:])
        XCTAssertEqual(restored.status, 201, restored.text)
        try assertValid("post_folders_id", restored)
        XCTAssertEqual(try restored.json()["item_status"] as? String, "active")
        XCTAssertEqual(try fixture.get("/2.0/files/\(deepID)").status, 200, "went with docs: back with it")
        XCTAssertEqual(try fixture.get("/2.0/files/\(aID)").status, 404, "deleted before docs: still in the trash")
        XCTAssertEqual(try fixture.changes(after: position).map(\.type), ["ITEM_UNDELETE_VIA_TRASH"])
        XCTAssertEqual(try fixture.changes(after: position).first?.id, docsID)
        XCTAssertEqual(try fixture.call("POST", "/2.0/folders/\(docsID)", json: [:]).status, 404, "no longer trashed")

        _ = try fixture.uploadNew("A.TXT", text: "new\n", folder: docsID)
        let taken = try fixture.call("POST", "/2.0/files/\(aID)", json: [:])
        XCTAssertEqual(taken.status, 409, taken.text)
        XCTAssertEqual(try taken.json()["code"] as? String, "item_name_in_use")
        try assertValid("post_files_id", taken)
        let renamed = try fixture.call("POST", "/2.0/files/\(aID)", json: ["name": "a2.txt"])
        XCTAssertEqual(renamed.status, 201, renamed.text)
        try assertValid("post_files_id", renamed)
        XCTAssertEqual(try fixture.id(of: "docs/a2.txt"), aID)

        // The old parent is gone for good: `parent.id` says where to go.
        let manyID = try fixture.id(of: "many")
        let dirID = try fixture.id(of: "many/dirB")
        let innerID = try fixture.id(of: "many/dirB/inner.txt")
        XCTAssertEqual(try fixture.call("DELETE", "/2.0/files/\(innerID)").status, 204)
        XCTAssertEqual(try fixture.call("DELETE", "/2.0/folders/\(dirID)").status, 204)
        XCTAssertEqual(try fixture.call("DELETE", "/2.0/folders/\(dirID)/trash").status, 204)
        XCTAssertEqual(try fixture.get("/2.0/folders/\(dirID)/trash").status, 404, "purged")
        XCTAssertEqual(try fixture.get("/2.0/folders/\(dirID)").status, 404)
        let moved = try fixture.call("POST", "/2.0/files/\(innerID)", json: ["parent": ["id": manyID]])
        XCTAssertEqual(moved.status, 201, moved.text)
        XCTAssertEqual((try moved.json()["parent"] as? [String: Any])?["id"] as? String, manyID)
        XCTAssertEqual(try fixture.id(of: "many/inner.txt"), innerID)
    }
}
