import BoxTestSupport
import Foundation
import XCTest

/// Two mounts (two processes) of one OAuth2 profile share its token file. Box refresh tokens are single-use,
/// so each expiry must cost exactly one refresh across both, and neither may spend a refresh token the other
/// already spent (Box would refuse it, and that mount would lose its sign-in).
final class AuthSharedStoreTests: AuthMountTestCase {
    func testTwoMountsTakingTurnsSurviveSeveralRefreshes() throws {
        XCTAssertEqual(try login().status, 0)
        let first = try mounted(), second = try mounted()
        let before = try lastSequence()
        for round in 0..<4 {
            try expire(try stored())
            XCTAssertEqual(try read(first, "a\(round).txt").stdout, "a\(round)\n", "round \(round), first mount")
            XCTAssertEqual(try read(second, "b\(round).txt").stdout, "b\(round)\n", "round \(round), second mount")
        }
        let calls = try tokenCalls(after: before)
        XCTAssertEqual(calls.map(\.status), [200, 200, 200, 200],
                       "one refresh per expiry, none refused (no burned token)")
    }

    /// Both mounts meet each expiry at the same moment, so both want to refresh: the lock makes one wait,
    /// re-read the file and adopt the other's token.
    func testTwoMountsRefreshingAtOnceSpendEachRefreshTokenOnce() throws {
        XCTAssertEqual(try login().status, 0)
        let mounts = [try mounted(), try mounted()]
        for mountpoint in mounts {
            XCTAssertEqual(try Shell.run(["ls", mountpoint.appendingPathComponent("many").path]).status, 0)
        }
        let before = try lastSequence()
        var refreshTokens = [try stored("refresh_token")]
        for round in 0..<4 {
            try expire(try stored())
            let paths = (0..<8).map { index in
                mounts[index % 2].appendingPathComponent("many/f\(round * 8 + index).txt").path
            }
            try readConcurrently(paths)
            refreshTokens.append(try stored("refresh_token"))
        }
        XCTAssertEqual(try tokenCalls(after: before).map(\.status), [200, 200, 200, 200],
                       "one refresh per expiry across both mounts, none refused")
        XCTAssertEqual(Set(refreshTokens).count, 5, "each round left a new refresh token in the shared file")
        let rejectedPerMount = try sim.requestLog().filter { $0.seq > before && $0.status == 401 }.count
        XCTAssertGreaterThan(rejectedPerMount, 1, "both mounts met the expired tokens")
    }
}
