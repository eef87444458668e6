import BoxTestSupport
import Foundation
import XCTest

/// Collaborations: a folder shared with another user is listed, read and written as the role allows (and
/// nothing else of the owner's is visible); new items there belong to the folder's owner; changes by either user
/// reach the other's event stream; ending the collaboration ends the access.
final class CollaborationTests: XCTestCase {
    func testACollaboratorListsReadsAndWritesAsTheRoleAllows() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let docsID = try fixture.id(of: "docs")
        let other = try fixture.otherUser()
        let added = try fixture.call("POST", "/2.0/collaborations", json: [
            "item": ["type": "folder", "id": docsID], "accessible_by": ["type": "user", "id": other.id], "role": "viewer",
        ])
        XCTAssertEqual(added.status, 201, added.text)
        try assertValid("post_collaborations", added)
        XCTAssertEqual(try added.json()["role"] as? String, "viewer")
        XCTAssertEqual(try added.json()["status"] as? String, "accepted")
        let listed = try fixture.get("/2.0/folders/\(docsID)/collaborations")
        try assertValid("get_folders_id_collaborations", listed)
        XCTAssertEqual((try listed.json()["entries"] as? [[String: Any]])?.count, 1)
        let collaborationID = try XCTUnwrap(try added.json()["id"] as? String)
        let shown = try fixture.get("/2.0/collaborations/\(collaborationID)")
        XCTAssertEqual(shown.status, 200, shown.text)
        try assertValid("get_collaborations_id", shown)
        try assertValid("get_files_id_collaborations", try fixture.get("/2.0/files/\(try fixture.id(of: "docs/a.txt"))/collaborations"))
        XCTAssertEqual(try fixture.call("GET", "/2.0/collaborations/\(collaborationID)", token: other.token).status, 200,
                       "a collaborator sees their own collaboration")
        let again = try fixture.call("POST", "/2.0/collaborations", json: [
            "item": ["type": "folder", "id": docsID], "accessible_by": ["type": "user", "id": other.id], "role": "editor",
        ])
        XCTAssertEqual(again.status, 400)
        XCTAssertEqual(try again.json()["code"] as? String, "user_already_collaborator")

        // A viewer lists, reads and downloads, at any depth, but changes nothing.
        let items = try fixture.call("GET", "/2.0/folders/\(docsID)/items", token: other.token)
        XCTAssertEqual(items.status, 200, items.text)
        XCTAssertEqual(Set((try items.json()["entries"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }),
                       ["sub", "a.txt"])
        let aID = try fixture.id(of: "docs/a.txt")
        let download = try Curl.run(fixture.sim.baseURL + "/2.0/files/\(aID)/content", token: other.token, extra: ["-L"])
        XCTAssertEqual(download.text, "alpha\nneedle line\n")
        XCTAssertEqual(try fixture.call("GET", "/2.0/files/\(try fixture.id(of: "docs/sub/deep.txt"))",
                                        token: other.token).status, 200)
        let permissions = try fixture.call("GET", "/2.0/folders/\(docsID)?fields=permissions", token: other.token).json()
        XCTAssertEqual((permissions["permissions"] as? [String: Any])?["can_download"] as? Bool, true)
        XCTAssertEqual((permissions["permissions"] as? [String: Any])?["can_upload"] as? Bool, false)
        let refused = try fixture.call("POST", "/2.0/folders", json: ["name": "new", "parent": ["id": docsID]],
                                       token: other.token)
        XCTAssertEqual(refused.status, 403, refused.text)
        try assertValid("post_folders", refused)
        let stranger = try fixture.otherUser(name: "Stranger")
        XCTAssertEqual(try fixture.call("GET", "/2.0/collaborations/\(collaborationID)", token: stranger.token).status, 404)
        XCTAssertEqual(try fixture.call("DELETE", "/2.0/collaborations/\(collaborationID)", token: stranger.token).status, 404)
        XCTAssertEqual(try fixture.call("PUT", "/2.0/files/\(aID)", json: ["name": "b.txt"], token: other.token).status, 403)
        let selfPromoted = try fixture.call("PUT", "/2.0/collaborations/\(collaborationID)", json: ["role": "co-owner"],
                                            token: other.token)
        XCTAssertEqual(selfPromoted.status, 403, "a collaborator does not change their own role")
        let promoted = try fixture.call("PUT", "/2.0/collaborations/\(collaborationID)", json: ["role": "editor"])
        XCTAssertEqual(promoted.status, 200, promoted.text)
        try assertValid("put_collaborations_id", promoted)
        XCTAssertEqual(try promoted.json()["role"] as? String, "editor")
        XCTAssertEqual(try fixture.call("PUT", "/2.0/files/\(aID)", json: ["name": "b.txt"], token: other.token).status, 200,
                       "as an editor now")
        XCTAssertEqual(try fixture.call("GET", "/2.0/folders/\(try fixture.id(of: "many"))", token: other.token).status, 404,
                       "nothing else of the owner's")
        XCTAssertEqual(try fixture.call("GET", "/2.0/search?query=needle", token: other.token).json()["total_count"] as? Int,
                       1, "search covers shared folders")

        // An editor creates and changes; what they create belongs to the folder's owner.
        let manyID = try fixture.id(of: "many")
        let editing = try fixture.call("POST", "/2.0/collaborations", json: [
            "item": ["type": "folder", "id": manyID], "accessible_by": ["type": "user", "login": try fixture.call(
                "GET", "/2.0/users/me", token: other.token).json()["login"] as! String], "role": "editor",
        ])
        XCTAssertEqual(editing.status, 201, editing.text)
        let newID = try fixture.uploadNew("theirs.txt", text: "theirs\n", folder: manyID, token: other.token)
        let created = try fixture.getJSON("/2.0/files/\(newID)")
        XCTAssertEqual((created["owned_by"] as? [String: Any])?["id"] as? String, try fixture.getJSON("/2.0/users/me")["id"] as? String)
        XCTAssertEqual((created["created_by"] as? [String: Any])?["id"] as? String, other.id)
        XCTAssertEqual(try fixture.call("PUT", "/2.0/files/\(newID)", json: ["name": "t.txt"], token: other.token).status, 200)

        // Ending a collaboration ends the access: by the owner, or by the collaborator leaving.
        let docsCollaboration = try XCTUnwrap(try added.json()["id"] as? String)
        let removed = try fixture.call("DELETE", "/2.0/collaborations/\(docsCollaboration)")
        XCTAssertEqual(removed.status, 204)
        XCTAssertEqual(try fixture.call("GET", "/2.0/folders/\(docsID)", token: other.token).status, 404)
        let manyCollaboration = try XCTUnwrap(try editing.json()["id"] as? String)
        XCTAssertEqual(try fixture.call("DELETE", "/2.0/collaborations/\(manyCollaboration)", token: other.token).status, 204)
        XCTAssertEqual(try fixture.call("GET", "/2.0/folders/\(manyID)", token: other.token).status, 404)
    }

    func testChangesInASharedFolderReachTheOtherUsersStream() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let docsID = try fixture.id(of: "docs")
        let adminID = try XCTUnwrap(try fixture.getJSON("/2.0/users/me")["id"] as? String)
        let other = try fixture.otherUser()
        let ownerStart = try fixture.streamPosition()
        let otherStart = try fixture.streamPosition(token: other.token)
        XCTAssertEqual(try fixture.call("POST", "/2.0/collaborations", json: [
            "item": ["type": "folder", "id": docsID], "accessible_by": ["type": "user", "id": other.id], "role": "editor",
        ]).status, 201)
        let byOwner = try fixture.uploadNew("owner.txt", text: "o\n", folder: docsID)
        let byOther = try fixture.uploadNew("other.txt", text: "x\n", folder: docsID, token: other.token)
        _ = try fixture.uploadNew("private.txt", text: "p\n")

        let seenByOther = try fixture.changes(after: otherStart, token: other.token)
        XCTAssertEqual(seenByOther.map(\.type), ["COLLAB_ADD_COLLABORATOR", "ITEM_UPLOAD", "ITEM_UPLOAD"])
        XCTAssertEqual(seenByOther.map(\.id), [docsID, byOwner, byOther], "not the owner's private upload")
        let seenByOwner = try fixture.changes(after: ownerStart)
        XCTAssertEqual(seenByOwner.map(\.id), [docsID, byOwner, byOther, try fixture.id(of: "private.txt")])
        let page = try fixture.getJSON("/2.0/events?stream_type=changes&stream_position=\(ownerStart)")
        let creators = (page["entries"] as? [[String: Any]] ?? []).map { ($0["created_by"] as? [String: Any])?["id"] as? String }
        XCTAssertEqual(creators, [adminID, adminID, other.id, adminID], "created_by is who made the change")

        let admin = try fixture.getJSON("/2.0/events?stream_type=admin_logs&event_type=UPLOAD")
        let uploads = (admin["entries"] as? [[String: Any]] ?? []).filter {
            ($0["source"] as? [String: Any])?["id"] as? String == byOther
        }
        XCTAssertEqual(uploads.count, 1, "one admin event per change, not one per stream")

        // A file moved out of the shared folder leaves the collaborator's view: they hear of it.
        let beforeMove = try fixture.streamPosition(token: other.token)
        XCTAssertEqual(try fixture.call("PUT", "/2.0/files/\(byOwner)", json: ["parent": ["id": "0"]]).status, 200)
        XCTAssertEqual(try fixture.changes(after: beforeMove, token: other.token).map(\.type), ["ITEM_MOVE"])
    }
}
