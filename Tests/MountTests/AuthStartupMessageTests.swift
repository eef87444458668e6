import BoxTestSupport
import Foundation
import XCTest

/// The one line a mount prints when its account cannot start: it names what the account really uses.
final class AuthStartupMessageTests: AuthMountTestCase {
    /// The endpoint comes from the profile (no `-o endpoint`): the message names it, not api.box.com.
    /// A developer-token profile needs no token request, so reaching Box for the account check fails first.
    func testAnUnreachableProfileEndpointIsTheOneNamed() throws {
        let unreachable = "http://127.0.0.1:1"
        let add = try boxfs(["profile", "add", "dead", "--auth", "developer", "--endpoint", unreachable,
                             "--token-file", try developerTokenFile(), "--no-check"])
        XCTAssertEqual(add.status, 0, add.stderr)
        let (_, result) = try mount(options: ["profile=dead"])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("cannot reach Box at \(unreachable)"), result.stderr)
        XCTAssertFalse(result.stderr.contains("api.box.com"), result.stderr)
    }

    /// A developer token Box rejects cannot be refreshed, and the mount says so.
    func testARejectedDeveloperTokenSaysItCannotBeRefreshed() throws {
        let options = try developerTokenOptions()
        try expire(sim.developerToken)
        let (_, result) = try mount(options: options)
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("developer tokens expire after 60 minutes and cannot be refreshed"),
                      result.stderr)
        XCTAssertFalse(result.stderr.contains(sim.developerToken))
    }

    /// Rejected while mounted: EACCES, and the log says why.
    func testADeveloperTokenRejectedWhileMountedGivesEACCESAndTheLogSaysWhy() throws {
        let log = configDirectory.appendingPathComponent("mount.log").path
        let mountpoint = try mounted(options: try developerTokenOptions("log_file=\(log)"))
        XCTAssertEqual(try read(mountpoint, "a.txt").stdout, "alpha\n")
        try expire(sim.developerToken)
        let refused = try read(mountpoint, "a1.txt")
        XCTAssertTrue(refused.stderr.contains("Permission denied"), refused.stderr)
        XCTAssertEqual(try tokenCalls().count, 0, "a developer token is never refreshed")
        let logText = try String(contentsOfFile: log, encoding: .utf8)
        XCTAssertTrue(logText.contains("cannot be refreshed"), logText)
        XCTAssertFalse(logText.contains(sim.developerToken))
    }
}
