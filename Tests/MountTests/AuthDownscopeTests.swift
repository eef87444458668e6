import BoxTestSupport
import Foundation
import XCTest

/// `-o downscope`: the mount exchanges its token for a read-only one limited to the mounted folder. (That the
/// downscoped token itself cannot write is checked through the Box client in BoxAuthTests.DownscopedTokenTests.)
final class AuthDownscopeTests: AuthMountTestCase {
    func testDownscopedMountReadsButCannotWrite() throws {
        let mountpoint = try mounted(options: try developerTokenOptions("downscope"))
        XCTAssertEqual(try read(mountpoint, "a.txt").stdout, "alpha\n")
        let write = try Shell.bash("echo x > '\(mountpoint.path)/new.txt'")
        XCTAssertTrue(write.stderr.contains("Read-only file system"), write.stderr)
        XCTAssertEqual(try tokenCalls().map(\.status), [200], "one token exchange")
    }

    /// Box refuses the event stream to the downscoped token (boxsim answers 403 insufficient_scope, as for any
    /// scope a token lacks): the mount lists again every dir_cache_ttl, says so once in its log and in
    /// `boxfs status`, and does not ask for the stream again within the test.
    func testADownscopedMountIsRefusedTheEventStreamAndListsAgainEveryDirCacheTTL() async throws {
        let log = configDirectory.appendingPathComponent("daemon.log")
        let mountpoint = try mounted(options: try developerTokenOptions("downscope", "dir_cache_ttl=2",
                                                                        "log_file=\(log.path)"))
        XCTAssertTrue(try Shell.run(["ls", mountpoint.path]).stdout.contains("a.txt\n"))
        let status = { try self.boxfs(["status", mountpoint.path]).stdout }
        try await Poll.until("the fallback in boxfs status", timeout: 10, interval: 0.2) {
            try status().contains("listed again every dir_cache_ttl") ? true : nil
        }
        let line = try status().split(separator: "\n").first { $0.contains("changes elsewhere:") }.map(String.init) ?? ""
        XCTAssertTrue(line.contains("unavailable to this token") && line.contains("403"), line)

        let made = try Shell.bash("curl -sS -o /dev/null -w '%{http_code}' -X POST '\(sim.baseURL)/2.0/folders' "
            + "-H @- --data-binary '{\"name\":\"made elsewhere\",\"parent\":{\"id\":\"0\"}}' "
            + "<<< 'Authorization: Bearer \(sim.developerToken)'")
        XCTAssertEqual(made.stdout, "201", made.stderr)
        try await Poll.until("the new folder after dir_cache_ttl", timeout: 2 + 3, interval: 0.2) {
            try Shell.run(["ls", mountpoint.path]).stdout.contains("made elsewhere") ? true : nil
        }
        try await Task.sleep(nanoseconds: 5_000_000_000)
        let asked = try sim.requestLog().filter { $0.path == "/2.0/events" }
        XCTAssertEqual(asked.map(\.status), [403], "asked once, refused, not asked again at every backoff")
        XCTAssertEqual(try sim.requestLog().filter { $0.path == "/subscribe" }.count, 0)
        let text = try String(contentsOf: log, encoding: .utf8)
        XCTAssertEqual(text.split(separator: "\n").filter { $0.contains("event stream refused for this token") }.count,
                       1, text)
    }
}
