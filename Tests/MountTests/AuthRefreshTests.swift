import BoxTestSupport
import Foundation
import XCTest

/// Refreshing one mount's token: before sending when it is about to expire, and exactly once when Box
/// rejects it, however many requests meet the rejection at the same time.
final class AuthRefreshTests: AuthMountTestCase {
    func test64ConcurrentReadsWithAnExpiredTokenMakeOneTokenRequest() throws {
        XCTAssertEqual(try login().status, 0)
        let mountpoint = try mounted()
        XCTAssertEqual(try read(mountpoint, "a.txt").stdout, "alpha\n")
        // List the folder first, so each of the 64 reads goes to Box for its own file with the expired token.
        XCTAssertEqual(try Shell.run(["ls", mountpoint.appendingPathComponent("many").path]).status, 0)
        let before = try lastSequence()
        try expire(try stored())
        // Each file request waits 300 ms before boxsim looks at its token, so the reads are on the wire together
        // when the first 401 comes back (without it, on a quiet machine, one read could meet it alone).
        try control("POST", "faults", #"{"path_prefix":"/2.0/files","latency_ms":300}"#)
        try readConcurrently((0..<64).map { mountpoint.appendingPathComponent("many/f\($0).txt").path })
        let calls = try tokenCalls(after: before)
        XCTAssertEqual(calls.map(\.status), [200], "exactly one refresh for 64 readers: \(calls)")
        let rejected = try sim.requestLog().filter { $0.seq > before && $0.status == 401 }
        XCTAssertGreaterThan(rejected.count, 1, "several reads met the expired token at once")
    }

    /// With 8-second tokens, the token is replaced once less than half its lifetime is left: the reads never
    /// meet a 401.
    func testATokenAboutToExpireIsRefreshedBeforeSending() throws {
        try control("PUT", "settings", #"{"access_token_lifetime":8}"#)
        XCTAssertEqual(try login().status, 0)
        let first = try stored()
        let mountpoint = try mounted()
        let before = try lastSequence()
        for round in 0..<4 {
            usleep(1_500_000)
            XCTAssertEqual(try read(mountpoint, "a\(round).txt").stdout, "a\(round)\n", "round \(round)")
        }
        XCTAssertNotEqual(try stored(), first, "the token was replaced")
        XCTAssertGreaterThan(try tokenCalls(after: before).filter { $0.status == 200 }.count, 0)
        let rejected = try sim.requestLog().filter { $0.status == 401 }.map(\.path)
        XCTAssertEqual(rejected, [], "no request met an expired token")
    }
}
