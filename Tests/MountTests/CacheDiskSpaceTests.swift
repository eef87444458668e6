import BoxTestSupport
import Foundation
import XCTest

/// The block cache shares its disk with the journal and the local copies of written files: what was
/// read must give way to what is written (docs/CONFIGURATION.md `cache_min_free`).
final class CacheDiskSpaceTests: WriteTestCase {
    /// A tmpfs of `megabytes` MiB, unmounted when the test ends (after the mounts using it are gone).
    private func smallDisk(megabytes: Int) throws -> URL {
        let folder = try makeTemporaryDirectory("boxfs-smalldisk")
        let mounted = try Shell.run(["mount", "-t", "tmpfs", "-o", "size=\(megabytes)m,mode=0700", "tmpfs", folder.path])
        guard mounted.succeeded else { throw XCTSkip("cannot mount a tmpfs here: \(mounted.stderr)") }
        addTeardownBlock { _ = try? Shell.run(["umount", "-l", folder.path]) }
        return folder
    }

    private func availableBytes(_ url: URL) -> Int64 {
        var info = statvfs()
        guard statvfs(url.path, &info) == 0 else { return -1 }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    func testReadingAFileLargerThanTheCacheDiskLeavesTheDefaultFreeRoomForWrites() async throws {
        let disk = try smallDisk(megabytes: 32)
        let sim = try await startBoxSim(largeFiles: ["big.bin": 40 << 20])
        let fixture = try mountWithFreshCache(options: ["cache_dir=\(disk.path)/cache", "write_back_delay=0"])
        _ = try succeed(["cat", fixture.path("big.bin")]).count
        // A tenth of the 32 MiB disk stays free (without the rule the cache leaves less than a block).
        XCTAssertGreaterThanOrEqual(availableBytes(disk), 2 << 20, "the cache left room")
        try succeed(["bash", "-c", "echo hi > \(fixture.path("new.txt"))"])
        let uploaded = try await Poll.until("new.txt is uploaded") { try BoxSimAPI(sim).entry(at: "new.txt") }
        XCTAssertEqual(try BoxSimAPI(sim).text(of: uploaded.id), "hi\n")
    }

    func testAFullCacheDiskGivesWayToWritesAndOnlyDataWithNoRoomGetsENOSPC() async throws {
        let disk = try smallDisk(megabytes: 16)
        let sim = try await startBoxSim(largeFiles: ["big.bin": 24 << 20])
        let fixture = try mountWithFreshCache(options: [
            "cache_dir=\(disk.path)/cache", "cache_min_free=0", "write_back_delay=0",
        ])
        _ = try succeed(["cat", fixture.path("big.bin")]).count
        XCTAssertLessThan(availableBytes(disk), 2 << 20, "with cache_min_free=0 the cache fills the disk")
        // Something else takes the rest of the disk.
        _ = try Shell.run(["dd", "if=/dev/zero", "of=\(disk.path)/filler", "bs=64k"])
        XCTAssertEqual(availableBytes(disk), 0)
        let echo = try Shell.run(["bash", "-c", "echo hi > \(fixture.path("new.txt"))"])
        XCTAssertEqual(echo.status, 0, "a write after the cache filled the disk: \(echo.stderr)")
        let uploaded = try await Poll.until("new.txt is uploaded") { try BoxSimAPI(sim).entry(at: "new.txt") }
        XCTAssertEqual(try BoxSimAPI(sim).text(of: uploaded.id), "hi\n")

        // More than the whole disk: ENOSPC, the one error that says so.
        let tooBig = try Shell.run(["dd", "if=/dev/zero", "of=\(fixture.path("huge.bin"))", "bs=1M", "count=32"])
        XCTAssertNotEqual(tooBig.status, 0)
        XCTAssertTrue(tooBig.stderr.contains("No space left on device"), tooBig.stderr)
    }
}
