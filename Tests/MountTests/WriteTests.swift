import BoxTestSupport
import Foundation
import XCTest

/// File content written through a mount reaches Box byte-exact, is seen at once by the writer, and costs only the
/// transfers it needs.
final class WriteTests: WriteTestCase {
    func testANewFileReachesBoxInOneDirectUpload() async throws {
        let mount = try await startAndMount()
        let local = try localFile(size: 3_000_000)
        let before = try lastSequence(try XCTUnwrap(boxsim))
        try succeed(["cp", local.path, mount.path("new.bin")])

        let entry = try await waitForBox("new.bin", sha1: try sha1(local.path))
        XCTAssertEqual(entry.size, 3_000_000)
        let log = try requests().after(before)
        XCTAssertEqual(log.matching("POST", UploadPaths.newFile).succeeded.count, 1, log.summary)
        XCTAssertTrue(log.matching("POST", UploadPaths.sessionCreate).isEmpty, "3 MB needs no upload session")
    }

    func testWhatWasWrittenIsSeenAtOnceBeforeTheUpload() async throws {
        let mount = try await startAndMount(texts: ["doc.txt": "old words\n"], options: ["write_back_delay=30"])
        let before = try lastSequence(try XCTUnwrap(boxsim))
        try write("brand new\n", to: mount.path("new.txt"))
        try write("new words, longer\n", to: mount.path("doc.txt"))

        XCTAssertEqual(try succeed(["cat", mount.path("new.txt")]), "brand new\n")
        XCTAssertEqual(try succeed(["cat", mount.path("doc.txt")]), "new words, longer\n")
        XCTAssertEqual(try succeed(["stat", "-c", "%s", mount.path("doc.txt")]), "18\n")
        XCTAssertEqual(try succeed(["ls", mount.mountpoint.path]), "doc.txt\nnew.txt\n")
        // Box has not been told yet: the mount served all of that from its own copy.
        XCTAssertNil(try api.entry(at: "new.txt"))
        XCTAssertEqual(try api.entry(at: "doc.txt")?.sha1, try sha1(of: "old words\n"))
        let log = try requests().after(before)
        XCTAssertTrue(log.writes.isEmpty, log.summary)
    }

    func testAWriteInsideALargeFileUploadsTheWholePatchedFileAsANewVersion() async throws {
        let size = 6 << 20
        let mount = try await startAndMount(largeFiles: ["big.bin": size])
        let original = try XCTUnwrap(try api.entry(at: "big.bin"))
        let expected = try localCopyOfSeededFile(size: size)
        let patch = "printf 'PATCHED IN THE MIDDLE' | dd of=\"$DEST\" bs=1 seek=3000000 conv=notrunc status=none"
        for destination in [expected.path, mount.path("big.bin")] {
            XCTAssertEqual(try Shell.bash(patch, environment: ["DEST": destination]).status, 0)
        }
        XCTAssertEqual(try sha1(mount.path("big.bin")), try sha1(expected.path), "the writer reads its own bytes")

        let entry = try await waitForBox("big.bin", sha1: try sha1(expected.path))
        XCTAssertEqual(entry.id, original.id, "a new version of the same file")
        XCTAssertNotEqual(entry.versionID, original.versionID)
        XCTAssertEqual(entry.size, Int64(size))
    }

    func testOverwritingWithTruncateDownloadsNothing() async throws {
        let mount = try await startAndMount(largeFiles: ["big.bin": 8 << 20])
        let sim = try XCTUnwrap(boxsim)
        let original = try XCTUnwrap(try api.entry(at: "big.bin"))
        _ = try succeed(["stat", mount.path("big.bin")])
        let before = try lastSequence(sim)
        let local = try localFile(size: 1 << 20, seed: 7)
        try succeed(["cp", local.path, mount.path("big.bin")])  // open(O_TRUNC): the old bytes are not needed

        let entry = try await waitForBox("big.bin", sha1: try sha1(local.path))
        XCTAssertEqual(entry.id, original.id)
        XCTAssertEqual(try downloadedBytes(after: before, in: sim), 0, "nothing of the old content was fetched")
    }

    func testTruncateShrinksAndExtendsOnBox() async throws {
        let text = String(repeating: "0123456789", count: 10)
        let mount = try await startAndMount(texts: ["shrink.txt": text, "grow.txt": text])
        let local = try makeTemporaryDirectory()
        for name in ["shrink.txt", "grow.txt"] {
            try Data(text.utf8).write(to: local.appendingPathComponent(name))
        }
        for (name, size) in [("shrink.txt", "10"), ("grow.txt", "5000")] {
            try succeed(["truncate", "-s", size, mount.path(name)])
            try succeed(["truncate", "-s", size, local.appendingPathComponent(name).path])
        }
        let sizes = try succeed(["stat", "-c", "%s", mount.path("shrink.txt"), mount.path("grow.txt")])
        XCTAssertEqual(sizes, "10\n5000\n")
        for name in ["shrink.txt", "grow.txt"] {
            let expected = try sha1(local.appendingPathComponent(name).path)
            XCTAssertEqual(try sha1(mount.path(name)), expected, name)
            try await waitForBox(name, sha1: expected)
        }
    }

    func testRewritesInABurstBecomeOneUpload() async throws {
        let mount = try await startAndMount(options: ["write_back_delay=2"])
        let before = try lastSequence(try XCTUnwrap(boxsim))
        let burst = "for i in 1 2 3 4 5 6; do printf \"version $i\" > \"$DEST\"; done"
        XCTAssertEqual(try Shell.bash(burst, environment: ["DEST": mount.path("often.txt")]).status, 0)

        try await waitForBox("often.txt", text: "version 6")
        let log = try requests().after(before)
        XCTAssertEqual(log.matching("POST", UploadPaths.newFile).count, 1, log.summary)
        XCTAssertTrue(log.matching("POST", UploadPaths.newVersion()).isEmpty, log.summary)
    }

    func testBytesWrittenAroundAnFsyncAllReachBox() async throws {
        let mount = try await startAndMount(options: ["write_back_delay=1"])
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: try createEmpty(mount.path("synced.txt"))))
        try handle.write(contentsOf: Data("first half, ".utf8))
        try handle.synchronize()
        try handle.write(contentsOf: Data("second half\n".utf8))
        try handle.close()
        try await waitForBox("synced.txt", text: "first half, second half\n")
    }

    /// Creates an empty file with `touch` and answers its path.
    private func createEmpty(_ path: String) throws -> String {
        try succeed(["touch", path])
        return path
    }
}
