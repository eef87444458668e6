import BoxTestSupport
import Foundation
import XCTest

/// `-o as_user=ID`: an admin's mount acts as another user (`As-User` on every API call); a non-admin is refused
/// with one clear line, and a refusal after mounting gives EACCES.
final class AuthAsUserTests: AuthMountTestCase {
    func testAsUserReadsTheOtherUsersFilesAndIsRefusedForANonAdmin() throws {
        let user = try control("POST", "users", #"{"name":"Other","kind":"user"}"#)
        let userID = try XCTUnwrap(user["id"] as? String)
        // The admin creates a folder as that user (As-User over the API).
        let created = try Shell.bash("curl -sS -o /dev/null -w '%{http_code}' -X POST '\(sim.baseURL)/2.0/folders' "
            + "-H 'As-User: \(userID)' -H @- --data-binary '{\"name\":\"theirs\",\"parent\":{\"id\":\"0\"}}' "
            + "<<< 'Authorization: Bearer \(sim.developerToken)'")
        XCTAssertEqual(created.stdout, "201", created.stderr)
        let tokenFile = try developerTokenFile()
        let mountpoint = try mounted(options: ["endpoint=\(sim.baseURL)", "token_file=\(tokenFile)",
                                               "as_user=\(userID)"])
        XCTAssertEqual(try Shell.run(["ls", mountpoint.path]).stdout, "theirs\n")
        let apiCalls = try sim.requestLog().filter { $0.path.hasPrefix("/2.0/") }
        XCTAssertTrue(apiCalls.contains { $0.path == "/2.0/users/me" })
        XCTAssertEqual(apiCalls.filter { $0.asUser != userID }.map(\.path), [], "every API call carries As-User")

        // A regular user's token cannot act as anyone.
        try Data(try issueToken(user: userID).utf8).write(to: URL(fileURLWithPath: tokenFile))
        let (_, refused) = try mount(options: ["endpoint=\(sim.baseURL)", "token_file=\(tokenFile)",
                                               "as_user=20000001"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("Box refused to act as user 20000001"), refused.stderr)
        XCTAssertEqual(refused.stderr.split(separator: "\n").count, 1, refused.stderr)

        // Impersonation refused after the mount (the user was deactivated): EACCES.
        try control("PUT", "users/\(userID)", #"{"status":"inactive"}"#)
        let denied = try Shell.run(["ls", mountpoint.appendingPathComponent("theirs").path])
        XCTAssertTrue(denied.stderr.contains("Permission denied"), denied.stderr)
    }

    /// An As-User mount follows that user's event stream (every events call carries As-User): a folder the user
    /// makes elsewhere shows within seconds although listings are trusted for ten minutes.
    func testAnAsUserMountFollowsThatUsersEventStream() async throws {
        let user = try control("POST", "users", #"{"name":"Other","kind":"user"}"#)
        let userID = try XCTUnwrap(user["id"] as? String)
        let tokenFile = try developerTokenFile()
        let mountpoint = try mounted(options: ["endpoint=\(sim.baseURL)", "token_file=\(tokenFile)",
                                               "as_user=\(userID)", "dir_cache_ttl=600"])
        XCTAssertEqual(try Shell.run(["ls", mountpoint.path]).stdout, "")
        try await Task.sleep(nanoseconds: 1_000_000_000)  // the stream is followed
        let created = try Shell.bash("curl -sS -o /dev/null -w '%{http_code}' -X POST '\(sim.baseURL)/2.0/folders' "
            + "-H 'As-User: \(userID)' -H @- --data-binary '{\"name\":\"made elsewhere\",\"parent\":{\"id\":\"0\"}}' "
            + "<<< 'Authorization: Bearer \(sim.developerToken)'")
        XCTAssertEqual(created.stdout, "201", created.stderr)
        try await Poll.until("the new folder in the As-User mount", timeout: 5, interval: 0.1) {
            try Shell.run(["ls", mountpoint.path]).stdout == "made elsewhere\n" ? true : nil
        }
        let events = try sim.requestLog().filter { $0.path == "/2.0/events" }
        XCTAssertFalse(events.isEmpty)
        XCTAssertEqual(events.filter { $0.asUser != userID }.count, 0, "the user's own stream")
    }
}
