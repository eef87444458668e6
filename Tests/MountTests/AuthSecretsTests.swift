import BoxTestSupport
import Foundation
import XCTest

/// Tokens, refresh tokens and client secrets never reach logs (even debug), messages, `ps` or the profile.
final class AuthSecretsTests: AuthMountTestCase {
    func testSecretsStayOutOfArgumentsAndMessages() throws {
        XCTAssertEqual(try login().status, 0)
        let log = configDirectory.appendingPathComponent("mount.log").path
        let mountpoint = try mounted(options: ["debug", "log_file=\(log)"])
        XCTAssertEqual(try read(mountpoint, "a.txt").stdout, "alpha\n")
        let first = try stored()
        try expire(first)
        XCTAssertEqual(try read(mountpoint, "a1.txt").stdout, "a1\n")
        let token = try stored()
        XCTAssertNotEqual(token, first, "a refresh happened while debug logging")
        let logText = try String(contentsOfFile: log, encoding: .utf8)
        XCTAssertTrue(logText.contains("refresh"), "the debug log mentions the refresh")
        let profile = try String(
            contentsOf: configDirectory.appendingPathComponent("profiles/default.toml"), encoding: .utf8)
        let secret = try XCTUnwrap(profile.split(separator: "\n").first { $0.hasPrefix("client_secret") }?
            .split(separator: "\"").dropFirst().first.map(String.init))
        for value in [first, token, try stored("refresh_token"), secret] {
            XCTAssertFalse(logText.contains(value), "a secret reached the log")
        }
        for pid in MountFixture.daemonPIDs(for: mountpoint.path) {
            let cmdline = try String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)
            XCTAssertFalse(cmdline.contains(token) || cmdline.contains(secret), "a secret is in the daemon's arguments")
        }
        XCTAssertFalse(profile.contains(token), "tokens live in the token store, not the profile")
    }

    /// `profile add` checks the account before saving: a wrong client secret fails there, naming Box's
    /// refusal but never the secret, and nothing is saved.
    func testAWrongClientSecretFailsProfileAddWithoutEchoingIt() throws {
        let app = try createApp()
        let wrong = "wrong-secret-\(UUID().uuidString)"
        let add = try boxfs(["profile", "add", "svc", "--auth", "ccg", "--endpoint", sim.baseURL, "--client-id",
                             app.clientID, "--client-secret-file", try privateFile(wrong),
                             "--enterprise-id", app.enterpriseID])
        XCTAssertEqual(add.status, 1)
        XCTAssertTrue(add.stderr.contains("invalid_client"), add.stderr)
        XCTAssertFalse((add.stdout + add.stderr).contains(wrong), "the secret was echoed")
        XCTAssertEqual(add.stderr.split(separator: "\n").count, 1, add.stderr)
        XCTAssertFalse(configFileExists("profiles/svc.toml"), "nothing is saved")
    }
}
