import BoxTestSupport
import Foundation
import XCTest

/// Delegated: a command the user configures is given the user's unique id and prints a token and its
/// lifetime (the Linux form of the SDKs' auth closure), with an optional initial token used first.
final class AuthDelegatedTests: AuthMountTestCase {
    /// A token command that records the id it was given in `asked-for` and prints `token`.
    func tokenCommand(printing token: String) throws -> (command: String, marker: String) {
        let marker = configDirectory.appendingPathComponent("asked-for").path
        let command = try privateFile(
            "#!/bin/sh\necho \"$1\" >> '\(marker)'\nprintf '%s\\n%s\\n' '\(token)' 3600\n", name: "token-command.sh")
        chmod(command, 0o700)
        return (command, marker)
    }

    func askedFor(_ marker: String) -> String {
        (try? String(contentsOfFile: marker, encoding: .utf8)) ?? ""
    }

    func testDelegatedCommandProfileMounts() throws {
        let (command, marker) = try tokenCommand(printing: try issueToken())
        let add = try boxfs(["profile", "add", "app", "--auth", "delegated", "--endpoint", sim.baseURL,
                             "--command", command, "--unique-id", "user-42"])
        XCTAssertEqual(add.status, 0, add.stderr)
        let mountpoint = try mounted(options: ["profile=app"])
        XCTAssertEqual(try read(mountpoint, "a.txt").stdout, "alpha\n")
        XCTAssertTrue(askedFor(marker).contains("user-42"), "the command got the unique id")
    }

    /// The initial token serves until Box rejects it; only then is the command run.
    func testTheInitialTokenIsUsedUntilRejectedThenTheCommand() throws {
        let initial = try issueToken()
        let (command, marker) = try tokenCommand(printing: try issueToken())
        let initialFile = try privateFile(initial, name: "initial")
        let add = try boxfs(["profile", "add", "app", "--auth", "delegated", "--endpoint", sim.baseURL, "--command",
                             command, "--unique-id", "user-42", "--token-file", initialFile])
        XCTAssertEqual(add.status, 0, add.stderr)
        let mountpoint = try mounted(options: ["profile=app"])
        XCTAssertEqual(try read(mountpoint, "a.txt").stdout, "alpha\n")
        XCTAssertEqual(askedFor(marker), "", "the initial token needed no command")
        try expire(initial)
        XCTAssertEqual(try read(mountpoint, "a1.txt").stdout, "a1\n")
        XCTAssertEqual(askedFor(marker), "user-42\n", "one run of the command once the initial token was rejected")
    }
}
