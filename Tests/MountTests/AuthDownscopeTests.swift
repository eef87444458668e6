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
}
