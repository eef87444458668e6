import BoxTestSupport
import Foundation
import XCTest

/// A command acts with the rights of the mount that holds the path, never with credentials of its own
/// (docs/SEMANTICS.md "Box commands").
final class BoxCommandRightsTests: AuthMountTestCase {
    func testAnAsUserMountsCommandsActAsThatUser() throws {
        let user = try control("POST", "users", #"{"name":"Other","kind":"user","login":"other@example.com"}"#)
        let userID = try XCTUnwrap(user["id"] as? String)
        let local = try privateFile("theirs\n", name: "t.txt")
        let uploaded = try Shell.run([
            "curl", "-sS", "-X", "POST", "\(sim.baseURL)/api/2.0/files/content", "-H", "As-User: \(userID)",
            "-H", "Authorization: Bearer \(sim.developerToken)", "-H", "Expect:",
            "-F", #"attributes={"name":"t.txt","parent":{"id":"0"}}"#, "-F", "file=@\(local)"])
        let fileID = try XCTUnwrap(((try JSONSerialization.jsonObject(with: Data(uploaded.stdout.utf8)) as? [String: Any])?["entries"]
            as? [[String: Any]])?.first?["id"] as? String, uploaded.stdout + uploaded.stderr)
        let mountpoint = try mounted(options: try developerTokenOptions("as_user=\(userID)", "events=off"))
        let before = try lastSequence()

        // No token in the command's environment: the mount's own rights are used.
        let locked = try boxfs(["lock", mountpoint.appendingPathComponent("t.txt").path])
        XCTAssertEqual(locked.status, 0, locked.stderr)
        XCTAssertTrue(locked.stdout.contains("locked by other@example.com"), locked.stdout)
        let link = try boxfs(["link", mountpoint.appendingPathComponent("t.txt").path])
        XCTAssertEqual(link.status, 0, link.stderr)

        let calls = try sim.requestLog().filter { $0.seq > before && $0.path.hasPrefix("/2.0/files/\(fileID)") }
        XCTAssertEqual(calls.filter { $0.method == "PUT" }.count, 2, "\(calls.map(\.path))")
        XCTAssertEqual(calls.filter { $0.asUser != userID }.map(\.path), [], "every call carries the mount's As-User")
    }

    /// A read-only mount (`ro`, or `downscope`, whose token cannot write): the kernel refuses the channel's
    /// read-write open, so the commands that only read carry their request in a name opened read-only, and those
    /// that change Box say why they cannot, without asking Box anything.
    func testADownscopedReadOnlyMountReadsButRefusesChangesInOneLine() throws {
        let mountpoint = try mounted(options: try developerTokenOptions("downscope"))
        let path = mountpoint.appendingPathComponent("a.txt").path
        let before = try lastSequence()

        let refused = try boxfs(["lock", path])
        XCTAssertEqual(refused.status, 1)
        XCTAssertEqual(refused.stderr, "boxfs lock: \(mountpoint.path) is on a read-only boxfs mount; `boxfs lock` changes Box and needs a read-write one\n")
        XCTAssertEqual(try sim.requestLog().filter { $0.seq > before }.map(\.path), [])

        let listed = try boxfs(["versions", path])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertEqual(listed.stdout, "\(path): no earlier versions\n")
        XCTAssertEqual(try boxfs(["versions", path]).stdout, listed.stdout, "the same query again")
        let found = try boxfs(["search", "alpha", "--in", mountpoint.path])
        XCTAssertEqual(found.stdout, path + "\n", found.stderr)
        XCTAssertEqual(try boxfs(["trash", "list", mountpoint.path]).stdout, "")
        XCTAssertFalse(try Shell.run(["ls", "-a", mountpoint.path]).stdout.contains(".boxfs"))
    }
}
