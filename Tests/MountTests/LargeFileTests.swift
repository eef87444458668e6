import BoxTestSupport
import Foundation
import XCTest

/// Trees and large files copied in with ordinary tools arrive byte-exact, large ones through chunked upload
/// sessions, and come back out identical through a mount that has never seen them.
final class LargeFileTests: WriteTestCase {
    static let partSize = 8 << 20

    /// A local tree of nested folders, an empty file and an empty folder, unusual names, a 100 MiB file and a
    /// 21 MiB one (both past the 20 MiB chunked threshold).
    func makeMixedTree() throws -> URL {
        let root = try makeTemporaryDirectory("mixed").appendingPathComponent("tree")
        let texts = [
            "README.md": "# mixed tree\n", "empty.txt": "", "names/with space.txt": "spaces\n",
            "names/ünïcødé ✓.txt": "unicode\n", "names/.hidden": "dot file\n",
            "deep/a/b/c/d/leaf.txt": String(repeating: "leaf ", count: 2000),
        ]
        for (path, text) in texts {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(),
                                                    withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("empty folder"),
                                                withIntermediateDirectories: true)
        for (path, size, seed) in [("media/huge.bin", 100 << 20, 11), ("media/medium.bin", 21 << 20, 12),
                                   ("deep/a/small.bin", 300_000, 13)] {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(),
                                                    withIntermediateDirectories: true)
            try SeedTree.writePatternFile(at: url, size: size, seed: UInt64(seed))
        }
        return root
    }

    func testCopyOfAMixedTreeInAndBackOutAfterARemountIsByteExact() async throws {
        let tree = try makeMixedTree()
        let expected = try TreeManifest.local(tree)
        let mount = try await startAndMount()
        let before = try lastSequence(try XCTUnwrap(boxsim))
        try succeed(["cp", "-r", tree.path, mount.mountpoint.path + "/"])

        let api = try self.api
        try await Poll.until("Box to hold the copied tree", timeout: 300, interval: 1) {
            try TreeManifest.box(api, folder: "tree") == expected ? true : nil
        }
        let log = try requests().after(before)
        let sessions = log.matching("POST", UploadPaths.sessionCreate).succeeded
        XCTAssertEqual(sessions.count, 2, "100 MiB and 21 MiB each go through one upload session\n\(log.summary)")
        XCTAssertEqual(log.matching("PUT", UploadPaths.part()).succeeded.count, 13 + 3, "8 MiB parts, each sent once")
        XCTAssertEqual(log.matching("POST", UploadPaths.commit()).filter { $0.status == 201 }.count, 2)
        let small = expected.filter { !$0.key.hasSuffix("/") && !$0.key.hasPrefix("media/") }.count
        XCTAssertEqual(log.matching("POST", UploadPaths.newFile).succeeded.count, small, "one direct upload each")
        XCTAssertTrue(log.matching("POST", UploadPaths.newVersion()).isEmpty, "nothing was uploaded twice")
        XCTAssertTrue(log.matching("DELETE", ".*").isEmpty, log.summary)

        mount.unmount()
        let fresh = try mountWithFreshCache()
        let out = try makeTemporaryDirectory("copy-out")
        try succeed(["cp", "-r", fresh.path("tree"), out.path + "/"])
        XCTAssertEqual(try TreeManifest.local(out.appendingPathComponent("tree")), expected)
        try succeed(["diff", "-r", tree.path, out.appendingPathComponent("tree").path])
    }

    func testANewVersionOfALargeFileGoesThroughAVersionSessionAndKeepsTheId() async throws {
        let mount = try await startAndMount(largeFiles: ["video.bin": 30 << 20])
        let original = try XCTUnwrap(try api.entry(at: "video.bin"))
        let before = try lastSequence(try XCTUnwrap(boxsim))
        let local = try localFile(size: 30 << 20, seed: 21)
        try succeed(["cp", local.path, mount.path("video.bin")])

        let entry = try await waitForBox("video.bin", sha1: try sha1(local.path), timeout: 120)
        XCTAssertEqual(entry.id, original.id)
        let log = try requests().after(before)
        XCTAssertEqual(log.matching("POST", "/api/2.0/files/\(original.id)/upload_sessions").succeeded.count, 1,
                       log.summary)
        XCTAssertEqual(log.matching("PUT", UploadPaths.part()).succeeded.count, 4, "30 MiB in 8 MiB parts")
        XCTAssertTrue(log.matching("POST", UploadPaths.newFile).isEmpty)
        XCTAssertTrue(log.matching("POST", UploadPaths.newVersion()).isEmpty)
    }

    func testTwentyMiBIsTheThresholdForChunkedUploads() async throws {
        let mount = try await startAndMount()
        let below = try localFile(size: (20 << 20) - 1, seed: 31, name: "below.bin")
        let at = try localFile(size: 20 << 20, seed: 32, name: "at.bin")
        try succeed(["cp", below.path, mount.path("below.bin")])
        try await waitForBox("below.bin", sha1: try sha1(below.path), timeout: 120)
        let between = try lastSequence(try XCTUnwrap(boxsim))
        try succeed(["cp", at.path, mount.path("at.bin")])
        try await waitForBox("at.bin", sha1: try sha1(at.path), timeout: 120)

        let log = try requests()
        XCTAssertEqual(log.filter { $0.seq <= between }.matching("POST", UploadPaths.newFile).succeeded.count, 1)
        XCTAssertTrue(log.filter { $0.seq <= between }.matching("POST", UploadPaths.sessionCreate).isEmpty)
        XCTAssertEqual(log.after(between).matching("POST", UploadPaths.sessionCreate).succeeded.count, 1)
        XCTAssertTrue(log.after(between).matching("POST", UploadPaths.newFile).isEmpty)
    }
}
