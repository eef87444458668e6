import BoxTestSupport
import Foundation
import XCTest

/// What the mount uploads becomes that version's blocks in its disk cache: reading a file back right
/// after writing it (`cp` then `sha1sum`, `rsync -c`, an editor's reload) downloads nothing, at this
/// mount and the next one.
final class UploadedContentCacheTests: WriteTestCase {
    /// GETs of a file's content: the API call that redirects, and the download it leads to.
    func contentReads(of id: String, after sequence: Int) throws -> [LoggedRequest] {
        let log = try requests().after(sequence)
        let downloads = log.filter { $0.method == "GET" && $0.path.hasPrefix("/dl/") }
        return log.matching("GET", "/2.0/files/\(id)/content") + downloads
    }

    func waitUntilNothingPending(_ mount: MountFixture) async throws {
        try await Poll.until("status to show nothing pending") {
            (try self.statusJSON(mount)["pending"] as? NSNumber)?.intValue == 0 ? true : nil
        }
    }

    func testAFileReadBackAfterItsUploadIsNotDownloadedHereOrAtTheNextMount() async throws {
        let mount = try await startAndMount()
        let local = try localFile(size: 5_000_000)
        let before = try lastSequence(try XCTUnwrap(boxsim))
        try succeed(["cp", local.path, mount.path("copied.bin")])
        let entry = try await waitForBox("copied.bin", sha1: try sha1(local.path))
        try await waitUntilNothingPending(mount)

        XCTAssertEqual(try sha1(mount.path("copied.bin")), try sha1(local.path))
        try await unmountAndWait(mount)
        let again = try mountWritable()
        XCTAssertEqual(try sha1(again.path("copied.bin")), try sha1(local.path))

        let downloads = try contentReads(of: entry.id, after: before)
        XCTAssertTrue(downloads.isEmpty, "read back from Box instead of the cache:\n\(downloads.summary)")
    }

    func testANewVersionWrittenInPlaceIsReadBackFromTheCache() async throws {
        let size = 3 << 20
        let mount = try await startAndMount(largeFiles: ["big.bin": size])
        let id = try XCTUnwrap(try api.entry(at: "big.bin")).id
        // Patch 4 bytes in the middle: the local copy is fetched whole, changed and uploaded as a new version.
        try succeed(["bash", "-c", "printf 'BOXF' | dd of=\"$0\" bs=1 seek=1500000 conv=notrunc status=none",
                     mount.path("big.bin")])
        let expected = try localCopyOfSeededFile(size: size)
        try succeed(["bash", "-c", "printf 'BOXF' | dd of=\"$0\" bs=1 seek=1500000 conv=notrunc status=none",
                     expected.path])
        try await waitForBox("big.bin", sha1: try sha1(expected.path))
        try await waitUntilNothingPending(mount)
        let afterUpload = try lastSequence(try XCTUnwrap(boxsim))

        XCTAssertEqual(try sha1(mount.path("big.bin")), try sha1(expected.path))
        let downloads = try contentReads(of: id, after: afterUpload)
        XCTAssertTrue(downloads.isEmpty, "the new version was downloaded again:\n\(downloads.summary)")
    }

    func testWithTheCacheOffAReadBackComesFromBoxAndIsRight() async throws {
        let mount = try await startAndMount(options: ["cache=off"])
        let local = try localFile(size: 2_000_000)
        try succeed(["cp", local.path, mount.path("copied.bin")])
        let entry = try await waitForBox("copied.bin", sha1: try sha1(local.path))
        try await waitUntilNothingPending(mount)
        let afterUpload = try lastSequence(try XCTUnwrap(boxsim))

        XCTAssertEqual(try sha1(mount.path("copied.bin")), try sha1(local.path))
        XCTAssertFalse(try contentReads(of: entry.id, after: afterUpload).isEmpty, "no cache: Box serves the bytes")
    }
}
