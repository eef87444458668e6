import BoxTestSupport
import Foundation
import XCTest

/// A file locked on Box by someone else is shown without write permission, and opening it for writing fails at
/// once with EACCES and a log line naming the lock, instead of an upload that Box would refuse later
/// (docs/SEMANTICS.md "Locks").
final class LockTests: WriteTestCase {
    func testAFileLockedByACollaboratorIsRefusedAtOpenUntilItIsUnlocked() async throws {
        let mount = try await startAndMount(texts: ["team/doc.txt": "draft\n"], options: ["events=off", "dir_cache_ttl=600"])
        let sim = try XCTUnwrap(boxsim)
        let user = try OtherUserShare.call(sim, "POST", "/_control/users", token: nil,
                                           json: ["name": "Colleague", "kind": "user", "login": "colleague@example.com"])
        let userID = try XCTUnwrap(user["id"] as? String)
        let issued = try OtherUserShare.call(sim, "POST", "/_control/tokens", token: nil, json: ["user_id": userID])
        let colleague = BoxSimAPI(sim, token: try XCTUnwrap(issued["access_token"] as? String))
        let team = try XCTUnwrap(try api.entry(at: "team"))
        let doc = try XCTUnwrap(try api.entry(at: "team/doc.txt"))
        _ = try api.call("POST", "/2.0/collaborations", json: [
            "item": ["type": "folder", "id": team.id], "accessible_by": ["type": "user", "id": userID], "role": "editor"])
        XCTAssertEqual(try succeed(["stat", "-c", "%A", mount.path("team/doc.txt")]), "-rw-r--r--\n")

        _ = try colleague.call("PUT", "/2.0/files/\(doc.id)?fields=lock", json: ["lock": ["access": "lock"]])
        try refresh(mount.path("team"))
        XCTAssertEqual(try succeed(["stat", "-c", "%A", mount.path("team/doc.txt")]), "-r--r--r--\n")
        let before = try requests().count
        let refused = try Shell.bash("echo more >> \"$F\"", environment: ["F": mount.path("team/doc.txt")])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("Permission denied"), refused.stderr)
        XCTAssertEqual(try succeed(["cat", mount.path("team/doc.txt")]), "draft\n", "reading still works")
        let log = try String(contentsOf: try XCTUnwrap(daemonLogs.last), encoding: .utf8)
        XCTAssertTrue(log.contains("doc.txt is locked on Box by colleague@example.com"), log)
        try await Task.sleep(nanoseconds: 500_000_000)
        XCTAssertTrue(Array(try requests().dropFirst(before)).writes.isEmpty, "nothing was sent for the refused write")

        _ = try colleague.call("PUT", "/2.0/files/\(doc.id)?fields=lock", json: ["lock": NSNull()])
        try refresh(mount.path("team"))
        XCTAssertEqual(try succeed(["stat", "-c", "%A", mount.path("team/doc.txt")]), "-rw-r--r--\n")
        try append("more\n", to: mount.path("team/doc.txt"))
        try await waitForBox("team/doc.txt", text: "draft\nmore\n")
    }

    /// The lock holder's own mount writes as usual.
    func testTheLockHoldersOwnMountCanWrite() async throws {
        let mount = try await startAndMount(texts: ["mine.txt": "one\n"], options: ["events=off", "dir_cache_ttl=600"])
        let file = try XCTUnwrap(try api.entry(at: "mine.txt"))
        _ = try api.call("PUT", "/2.0/files/\(file.id)?fields=lock", json: ["lock": ["access": "lock"]])
        try refresh(mount.mountpoint.path)
        XCTAssertEqual(try succeed(["stat", "-c", "%A", mount.path("mine.txt")]), "-rw-r--r--\n")
        try append("two\n", to: mount.path("mine.txt"))
        try await waitForBox("mine.txt", text: "one\ntwo\n")
    }
}
