import BoxTestSupport
import Foundation
import XCTest

/// What `boxfs status` prints is meant for people: full paths, sizes in units, plain slashes in JSON, and
/// only the mounts the user can reach; a read-ahead the kernel will not take is said, not swallowed.
final class StatusPresentationTests: WriteTestCase {
    func testStatusShowsFullPathsSizesInUnitsAndPlainSlashes() async throws {
        let fixture = try await startAndMount(texts: ["docs/keep.txt": "k\n"], options: ["write_back_delay=120"])
        try succeed(["bash", "-c", "printf abc > \(fixture.path("docs/small.txt"))"])
        try succeed(["dd", "if=/dev/zero", "of=\(fixture.path("docs/medium.bin"))", "bs=1000", "count=1500"])
        let binary = try MountFixture.locateBinary().path
        let text = try succeed([binary, "status", fixture.mountpoint.path])
        XCTAssertTrue(text.contains("\(fixture.mountpoint.path)/docs/small.txt  0 B of 3 B (0%)"), text)
        XCTAssertTrue(text.contains("\(fixture.mountpoint.path)/docs/medium.bin  0 B of 1.5 MB (0%)"), text)
        XCTAssertTrue(text.contains("  log: "), text)
        // The mounted folder and docs/ are listed; the kernel holds the root, docs and the two new files.
        XCTAssertTrue(text.contains("  in memory: 2 folder listing(s) of "), text)
        XCTAssertTrue(text.contains(" node(s) the kernel holds"), text)
        let json = try succeed([binary, "status", "--json", fixture.mountpoint.path])
        XCTAssertFalse(json.contains("\\/"), json)
        XCTAssertTrue(json.contains("\"path\" : \"\(fixture.mountpoint.path)/docs/small.txt\""), json)
        XCTAssertTrue(json.contains("\"name\" : \"docs/small.txt\""), json)
    }

    func testAUserOtherThanRootSeesNoLinesForOthersMounts() async throws {
        let fixture = try await startAndMount(texts: ["a.txt": "a\n"])
        XCTAssertTrue(fixture.isMounted)
        let user = try LocalUser.make()
        defer { user.remove() }
        let result = try user.run([try MountFixture.locateBinary().path, "status"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "no boxfs mounts\n")
        XCTAssertEqual(result.stderr, "")
    }

    func testAReadAheadAboveWhatTheKernelTakesIsRefusedWithOneLine() throws {
        let folder = try makeTemporaryDirectory("boxfs-readahead")
        let result = try MountFixture.runMount(source: "box:", mountpoint: folder.path, options: ["read_ahead_kb=4096"], token: "x")
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr, """
            boxfs: option 'read_ahead_kb': 4096 is more than the kernel lets a FUSE mount read ahead \
            (at most 1024); use read_ahead_kb=1024

            """)
    }
}
