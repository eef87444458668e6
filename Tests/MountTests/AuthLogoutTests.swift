import BoxTestSupport
import Foundation
import XCTest

/// `boxfs logout` revokes the tokens at Box: a running mount then fails cleanly (EACCES, at once, no retry
/// loop) and a new mount fails with one line saying to sign in again.
final class AuthLogoutTests: AuthMountTestCase {
    func testARevokedTokenFailsCleanly() throws {
        XCTAssertEqual(try login().status, 0)
        let mountpoint = try mounted()
        let logout = try boxfs(["logout"])
        XCTAssertEqual(logout.status, 0, logout.stderr)
        XCTAssertEqual(try sim.requestLog().filter { $0.path == "/oauth2/revoke" }.map(\.status), [200, 200],
                       "the access token and the refresh token were revoked")
        XCTAssertFalse(configFileExists("tokens/default.json"), "the tokens are deleted")
        let before = try lastSequence()
        let started = Date()
        let refused = try read(mountpoint, "a1.txt")
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("Permission denied"), refused.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "fails at once, no retry loop")
        let refreshes = try tokenCalls(after: before)
        XCTAssertFalse(refreshes.isEmpty, "the mount tried its refresh token")
        XCTAssertTrue(refreshes.allSatisfy { $0.status == 400 }, "and Box refused it: \(refreshes.map(\.status))")
        let (_, again) = try mount()
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.stderr.contains("boxfs login"), again.stderr)
        XCTAssertEqual(again.stderr.split(separator: "\n").count, 1, again.stderr)
    }
}
