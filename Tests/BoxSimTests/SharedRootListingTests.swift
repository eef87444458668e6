import BoxTestSupport
import Foundation
import XCTest

/// A folder (or file) shared with a user shows in that user's root ("All Files") beside their own items, in both kinds of
/// paging and in the root's `item_collection`; the owner's folders above it are hidden from the collaborator
/// (`parent` and `path_collection` start at the collaborator's root), and the owner still sees the real path.
final class SharedRootListingTests: XCTestCase {
    func testASharedFolderIsListedInTheCollaboratorsRootWithTheOwnersPathHidden() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let docsID = try fixture.id(of: "docs"), subID = try fixture.id(of: "docs/sub")
        let deepID = try fixture.id(of: "docs/sub/deep.txt")
        let other = try fixture.otherUser()
        let ownFolder = try fixture.call("POST", "/2.0/folders", json: ["name": "Own", "parent": ["id": "0"]],
                                         token: other.token)
        XCTAssertEqual(ownFolder.status, 201, ownFolder.text)
        _ = try fixture.uploadNew("mine.txt", text: "m\n", token: other.token)
        let start = try fixture.streamPosition(token: other.token)
        XCTAssertEqual(try rootNames(fixture, token: other.token), ["Own", "mine.txt"])

        XCTAssertEqual(try fixture.call("POST", "/2.0/collaborations", json: [
            "item": ["type": "folder", "id": subID], "accessible_by": ["type": "user", "id": other.id], "role": "viewer",
        ]).status, 201)
        XCTAssertEqual(try fixture.changes(after: start, token: other.token).map(\.type), ["COLLAB_ADD_COLLABORATOR"])
        let listed = try fixture.call("GET", "/2.0/folders/0/items?fields=name,parent,path_collection",
                                      token: other.token)
        XCTAssertEqual(listed.status, 200, listed.text)
        try assertValid("get_folders_id_items", listed)
        let entries = try XCTUnwrap(try listed.json()["entries"] as? [[String: Any]])
        XCTAssertEqual(entries.compactMap { $0["name"] as? String }, ["Own", "sub", "mine.txt"])
        XCTAssertEqual(try listed.json()["total_count"] as? Int, 3)
        let shared = try XCTUnwrap(entries.first { $0["id"] as? String == subID })
        XCTAssertEqual((shared["parent"] as? [String: Any])?["id"] as? String, "0")
        XCTAssertEqual(pathIDs(shared), ["0"])
        var marked: [String] = [], marker: String?
        repeat {
            let page = try fixture.call("GET", "/2.0/folders/0/items?usemarker=true&limit=1" +
                                        (marker.map { "&marker=\($0)" } ?? ""), token: other.token).json()
            marked += (page["entries"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            marker = page["next_marker"] as? String
        } while marker != nil
        XCTAssertEqual(marked, ["Own", "sub", "mine.txt"])
        let bySize = try fixture.call("GET", "/2.0/folders/0/items?sort=size&direction=DESC", token: other.token).json()
        XCTAssertEqual((bySize["entries"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String },
                       ["sub", "Own", "mine.txt"], "deep.txt's 5 bytes make sub the bigger folder")
        let root = try fixture.call("GET", "/2.0/folders/0", token: other.token).json()
        XCTAssertEqual(((root["item_collection"] as? [String: Any])?["entries"] as? [[String: Any]] ?? [])
            .compactMap { $0["name"] as? String }, ["Own", "sub", "mine.txt"])

        // Read by id, the shared folder and what is in it show the collaborator's path; the owner's is unchanged.
        let folder = try fixture.call("GET", "/2.0/folders/\(subID)", token: other.token).json()
        XCTAssertEqual((folder["parent"] as? [String: Any])?["id"] as? String, "0")
        XCTAssertEqual((folder["parent"] as? [String: Any])?["name"] as? String, "All Files")
        XCTAssertEqual(pathIDs(folder), ["0"])
        let deep = try fixture.call("GET", "/2.0/files/\(deepID)", token: other.token).json()
        XCTAssertEqual(pathIDs(deep), ["0", subID])
        XCTAssertEqual((deep["parent"] as? [String: Any])?["id"] as? String, subID)
        XCTAssertEqual(pathIDs(try fixture.getJSON("/2.0/folders/\(subID)")), ["0", docsID])
        let ownerRoot = try rootNames(fixture)
        XCTAssertTrue(ownerRoot.contains("docs"))
        XCTAssertFalse(ownerRoot.contains("sub") || ownerRoot.contains("Own"), "the owner's root is unchanged")

        // Shared as well, the folder above takes its place: the inner one is reached through it.
        XCTAssertEqual(try fixture.call("POST", "/2.0/collaborations", json: [
            "item": ["type": "folder", "id": docsID], "accessible_by": ["type": "user", "id": other.id], "role": "viewer",
        ]).status, 201)
        XCTAssertEqual(try rootNames(fixture, token: other.token), ["docs", "Own", "mine.txt"])
        XCTAssertEqual(pathIDs(try fixture.call("GET", "/2.0/folders/\(subID)", token: other.token).json()), ["0", docsID])

        // A trashed shared folder leaves the collaborator's root.
        XCTAssertEqual(try fixture.call("DELETE", "/2.0/folders/\(docsID)?recursive=true").status, 204)
        XCTAssertEqual(try rootNames(fixture, token: other.token), ["Own", "mine.txt"])

        // A file shared by itself is listed too, among the files.
        let helloID = try fixture.id(of: "hello.txt")
        XCTAssertEqual(try fixture.call("POST", "/2.0/collaborations", json: [
            "item": ["type": "file", "id": helloID], "accessible_by": ["type": "user", "id": other.id], "role": "viewer",
        ]).status, 201)
        XCTAssertEqual(try rootNames(fixture, token: other.token), ["Own", "hello.txt", "mine.txt"])
        XCTAssertEqual(pathIDs(try fixture.call("GET", "/2.0/files/\(helloID)", token: other.token).json()), ["0"])
    }

    private func rootNames(_ fixture: SimFixture, token: String? = nil) throws -> [String] {
        let page = try fixture.call("GET", "/2.0/folders/0/items", token: token).json()
        return (page["entries"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    }

    private func pathIDs(_ item: [String: Any]) -> [String] {
        ((item["path_collection"] as? [String: Any])?["entries"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }
}
