import BoxTestSupport
import Foundation
import XCTest

/// A developer token expires after an hour; a new one dropped into `token_file` keeps the mount going,
/// with no remount, and the uploads the expired token parked go up at once (docs/SEMANTICS.md "Tokens").
final class TokenRenewalTests: WriteTestCase {
    /// A fresh token for the admin user, from boxsim's control API.
    private func issueToken(_ sim: BoxSimProcess, api: BoxSimAPI) throws -> String {
        let me = try api.call("GET", "/2.0/users/me")
        let issued = try api.call("POST", "/_control/tokens", json: ["user_id": try XCTUnwrap(me["id"] as? String), "expires_in": 3600])
        return try XCTUnwrap(issued["access_token"] as? String)
    }

    private func expire(_ token: String, api: BoxSimAPI) throws {
        try api.call("POST", "/_control/tokens/expire", json: ["token": token])
    }

    func testANewTokenInTheTokenFileRevivesReadsAndParkedUploadsWithoutARemount() async throws {
        let sim = try await startBoxSim(texts: ["a.txt": "a\n", "b.txt": "b\n"])
        let admin = BoxSimAPI(sim, token: try issueToken(sim, api: BoxSimAPI(sim)))
        let folder = try makeTemporaryDirectory("boxfs-tokenfile")
        let tokenFile = folder.appendingPathComponent("token")
        try Data(sim.developerToken.utf8).write(to: tokenFile)
        chmod(tokenFile.path, 0o600)
        // events=off: the event follower's next request would read the new token first and send the parked
        // upload before `boxfs retry` is run (then "no upload is waiting").
        let fixture = try mountWritable(options: ["token_file=\(tokenFile.path)", "events=off"])
        XCTAssertEqual(try succeed(["cat", fixture.path("a.txt")]), "a\n")

        try expire(sim.developerToken, api: admin)
        // Writes are accepted; the upload meets the expired token and is parked.
        try succeed(["bash", "-c", "echo one > \(fixture.path("one.txt"))"])
        let binary = try MountFixture.locateBinary().path
        try await Poll.until("one.txt is parked") { () -> Bool? in
            let status = try Shell.run([binary, "status", fixture.mountpoint.path])
            return status.stdout.contains("parked") && status.stdout.contains("next try:") ? true : nil
        }
        let refused = try Shell.run(["cat", fixture.path("b.txt")])
        XCTAssertEqual(refused.status, 1, "a read with the expired token fails")
        XCTAssertTrue(refused.stderr.contains("Permission denied"), refused.stderr)

        // A new token in the file: the next request reads it, and the parked upload goes at once.
        let second = try issueToken(sim, api: admin)
        try Data((second + "\n").utf8).write(to: tokenFile)
        XCTAssertEqual(try succeed(["cat", fixture.path("b.txt")]), "b\n")
        let one = try await Poll.until("one.txt reaches Box", timeout: 30) { try admin.entry(at: "one.txt") }
        XCTAssertEqual(try admin.text(of: one.id), "one\n")

        // Expired again: `boxfs retry` sends the parked upload now, with whatever token the file holds.
        try expire(second, api: admin)
        try succeed(["bash", "-c", "echo two > \(fixture.path("two.txt"))"])
        try await Poll.until("two.txt is parked") { () -> Bool? in
            try Shell.run([binary, "status", fixture.mountpoint.path]).stdout.contains("parked") ? true : nil
        }
        try Data(try issueToken(sim, api: admin).utf8).write(to: tokenFile)
        let retried = try succeed([binary, "retry", fixture.mountpoint.path])
        XCTAssertTrue(retried.contains("trying 1 upload(s) again now"), retried)
        let two = try await Poll.until("two.txt reaches Box", timeout: 30) { try admin.entry(at: "two.txt") }
        XCTAssertEqual(try admin.text(of: two.id), "two\n")
    }

    func testRetryOnSomethingThatIsNotAMountSaysSo() throws {
        let folder = try makeTemporaryDirectory("boxfs-notamount")
        let result = try Shell.run([try MountFixture.locateBinary().path, "retry", folder.path])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("not a boxfs mount"), result.stderr)
    }
}
