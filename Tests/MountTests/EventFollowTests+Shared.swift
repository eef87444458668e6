import BoxTestSupport
import Foundation
import XCTest

/// Changes other users make in a folder shared with the mounted account come through the mount's own stream.
extension EventFollowTests {
    /// A collaborator's upload into a folder the mount's user owns and shares shows within seconds, although
    /// listings are trusted for dir_cache_ttl (60 s); a file the mount writes there reaches the collaborator.
    func testAFileAddedByACollaboratorInASharedFolderShowsWithinSeconds() async throws {
        try await startMounted(texts: ["team/plan.txt": "plan\n"])
        let sim = try XCTUnwrap(boxsim)
        let user = try OtherUserShare.call(sim, "POST", "/_control/users", token: nil,
                                           json: ["name": "Colleague", "kind": "user"])
        let userID = try XCTUnwrap(user["id"] as? String)
        let issued = try OtherUserShare.call(sim, "POST", "/_control/tokens", token: nil, json: ["user_id": userID])
        let token = try XCTUnwrap(issued["access_token"] as? String)
        let team = try XCTUnwrap(try api.entry(at: "team"))
        let collaboration = try api.call("POST", "/2.0/collaborations", json: [
            "item": ["type": "folder", "id": team.id], "accessible_by": ["type": "user", "id": userID],
            "role": "editor"])
        XCTAssertEqual(collaboration["type"] as? String, "collaboration", "\(collaboration)")
        XCTAssertEqual(try names(in: "team"), ["plan.txt"])

        _ = try OtherUserShare.upload(sim, token: token, name: "theirs.txt", parent: team.id,
                                      bytes: Data("from a colleague\n".utf8))
        try await waitUntilVisible("a collaborator's file") { try self.names(in: "team") == ["plan.txt", "theirs.txt"] }
        XCTAssertEqual(try contents("team/theirs.txt"), "from a colleague\n")

        try write("from the mount\n", to: try XCTUnwrap(mount).path("team/mine.txt"))
        try await waitForBox("team/mine.txt", text: "from the mount\n")
        let seen = try BoxSimAPI(sim, token: token).items(in: team.id).map(\.name).sorted()
        XCTAssertEqual(seen, ["mine.txt", "plan.txt", "theirs.txt"], "the collaborator sees the mount's file")
    }
}
