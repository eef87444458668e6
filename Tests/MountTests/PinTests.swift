import BoxTestSupport
import Foundation
import XCTest

/// `boxfs pin`, `boxfs unpin`, `boxfs pinned` (issue 27): a pinned folder's files, at any depth and added later, are
/// downloaded whole in the background, verified against Box's SHA-1, kept current, never evicted, and readable
/// offline; pins have their own budget and outlive the mount; `boxfs status` and `user.box.pinned` show them.
final class PinTests: WriteTestCase {
    private var binary: String { get throws { try MountFixture.locateBinary().path } }

    /// `boxfs pinned MOUNT` once every pin of the mount has `files` files, all of them here.
    @discardableResult
    private func waitUntilPinned(_ fixture: MountFixture, files: Int, timeout: Double = 60) async throws -> String {
        let binary = try self.binary
        return try await Poll.until("\(files) pinned file(s) here", timeout: timeout, interval: 0.3) {
            let out = try Shell.run([binary, "pinned", fixture.mountpoint.path]).stdout
            return out.contains(": \(files) of \(files) file(s)") ? out : nil
        }
    }

    private func attribute(_ path: String, _ name: String) throws -> String? {
        let result = try Shell.run(["getfattr", "--only-values", "-n", name, path])
        return result.status == 0 ? result.stdout : nil
    }

    private func waitUntilOffline(_ fixture: MountFixture) async throws {
        let binary = try self.binary
        try await Poll.until("the mount to notice Box is gone", timeout: 30, interval: 0.2) {
            try Shell.run([binary, "status", fixture.mountpoint.path]).stdout.contains("offline since ") ? true : nil
        }
    }

    func testPinningAFolderFetchesEveryFileBelowItWholeAndVerifiedAndShowsIt() async throws {
        let sim = try await startBoxSim(
            texts: ["docs/a.txt": "alpha\n", "other.txt": "not pinned\n"],
            largeFiles: ["docs/deep/er/big.bin": 3 << 20 + 123])
        let fixture = try mountWritable()
        let start = try lastSequence(sim)
        let pinned = try succeed([try binary, "pin", fixture.path("docs")])
        XCTAssertTrue(pinned.hasPrefix("pinned \(fixture.path("docs")): "), pinned)
        let listed = try await waitUntilPinned(fixture, files: 2)
        XCTAssertTrue(listed.contains("\(fixture.path("docs")): 2 of 2 file(s), 3.1 MB of 3.1 MB here (100%)"), listed)
        XCTAssertGreaterThanOrEqual(try downloadedBytes(after: start, in: sim), Int64(3 << 20 + 123 + 6), "fetched whole")

        // Read back: nothing more is downloaded, and the bytes are Box's.
        let before = try lastSequence(sim)
        let big = try XCTUnwrap(try api.entry(at: "docs/deep/er/big.bin"))
        XCTAssertEqual(try sha1(fixture.path("docs/deep/er/big.bin")), big.sha1)
        XCTAssertEqual(try succeed(["cat", fixture.path("docs/a.txt")]), "alpha\n")
        XCTAssertEqual(try downloadedBytes(after: before, in: sim), 0, "pinned files are read from the disk cache")

        XCTAssertEqual(try attribute(fixture.path("docs/deep/er/big.bin"), "user.box.pinned"), "/docs")
        XCTAssertEqual(try attribute(fixture.path("docs"), "user.box.pinned"), "/docs")
        XCTAssertEqual(try attribute(fixture.path("docs/deep"), "user.box.pinned"), "/docs")
        XCTAssertNil(try attribute(fixture.path("other.txt"), "user.box.pinned"))
        let names = try succeed(["getfattr", "-d", "-m", "user.box", fixture.path("docs/a.txt")])
        XCTAssertTrue(names.contains("user.box.pinned=\"/docs\""), names)

        let status = try succeed([try binary, "status", fixture.mountpoint.path])
        XCTAssertTrue(status.contains("  pinned: 1 item(s), 3.1 MB of 3.1 MB here (100%), 0 B to fetch (2 of 2 file(s) here)"), status)
        let json = try succeed([try binary, "status", "--json", fixture.mountpoint.path])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let pins = try XCTUnwrap(object["pinned"] as? [String: Any], json)
        XCTAssertEqual(pins["bytes_to_fetch"] as? Int, 0)
        XCTAssertEqual(pins["files_done"] as? Int, 2)
    }

    func testAFileAddedOnBoxIntoAPinnedFolderAndANewVersionOnBoxAreFetched() async throws {
        let sim = try await startBoxSim(texts: ["docs/a.txt": "first\n", "docs/sub/keep.txt": "keep\n"])
        let fixture = try mountWritable()
        try succeed([try binary, "pin", fixture.path("docs")])
        try await waitUntilPinned(fixture, files: 2)

        let sub = try XCTUnwrap(try api.entry(at: "docs/sub"))
        try api.uploadFile(named: "later.txt", text: "added on Box later\n", parentID: sub.id)
        try await waitUntilPinned(fixture, files: 3)
        let a = try XCTUnwrap(try api.entry(at: "docs/a.txt"))
        try api.uploadVersion(of: a.id, data: Data("second version\n".utf8))
        try await Poll.until("the new version fetched", timeout: 60, interval: 0.3) {
            let out = try Shell.run([try self.binary, "pinned", fixture.mountpoint.path]).stdout
            return out.contains(": 3 of 3 file(s), 39 B of 39 B here") ? true : nil
        }

        let before = try lastSequence(sim)
        XCTAssertEqual(try succeed(["cat", fixture.path("docs/sub/later.txt")]), "added on Box later\n")
        XCTAssertEqual(try succeed(["cat", fixture.path("docs/a.txt")]), "second version\n")
        XCTAssertEqual(try downloadedBytes(after: before, in: sim), 0, "both were on this machine already")
        XCTAssertEqual(try attribute(fixture.path("docs/sub/later.txt"), "user.box.pinned"), "/docs")
    }

    /// A cache of 8 MiB, 24 MiB of other files read through it, then Box gone: the pinned files still read
    /// byte-exact (from the disk cache, checked against the SHA-1 Box gave before it went).
    func testPinnedFilesSurviveCachePressureAndReadOfflineByteExact() async throws {
        let sim = try await startBoxSim(
            texts: ["keep/small.txt": "small and pinned\n"],
            largeFiles: ["keep/one.bin": 3 << 20, "keep/two.bin": 2 << 20 + 7,
                         "other/x1.bin": 6 << 20, "other/x2.bin": 6 << 20, "other/x3.bin": 6 << 20, "other/x4.bin": 6 << 20])
        let fixture = try mountWritable(options: ["cache_size=8M"])
        let expected = try ["one.bin", "two.bin"].map { try XCTUnwrap(try api.entry(at: "keep/" + $0)?.sha1) }
        try succeed([try binary, "pin", fixture.path("keep")])
        try await waitUntilPinned(fixture, files: 3)
        // 24 MiB through a cache of 8: everything read before them would be evicted, pinned blocks are not.
        let start = try lastSequence(sim)
        for name in ["x1", "x2", "x3", "x4"] { _ = try sha1(fixture.path("other/\(name).bin")) }
        XCTAssertGreaterThanOrEqual(try downloadedBytes(after: start, in: sim), Int64(24 << 20))

        sim.stop()
        try await waitUntilOffline(fixture)
        XCTAssertEqual(try sha1(fixture.path("keep/one.bin")), expected[0])
        XCTAssertEqual(try sha1(fixture.path("keep/two.bin")), expected[1])
        XCTAssertEqual(try succeed(["cat", fixture.path("keep/small.txt")]), "small and pinned\n")
    }

    /// Wrong bytes from Box (boxsim's `corrupt` fault) fail the whole-file check: nothing is kept, the pin says
    /// why; once Box sends the right bytes, the file is fetched again and kept.
    func testWrongBytesFromBoxAreNotKeptAndThePinSaysWhyUntilTheRightBytesCome() async throws {
        try await startBoxSim(largeFiles: ["docs/data.bin": 2 << 20])
        let fixture = try mountWritable()
        try api.corruptBodies(atByte: 1000)
        try succeed([try binary, "pin", fixture.path("docs")])
        let listed = try await Poll.until("the pin's error", timeout: 30, interval: 0.3) {
            let out = try Shell.run([try self.binary, "pinned", fixture.mountpoint.path]).stdout
            return out.contains("last error: ") ? out : nil
        }
        XCTAssertTrue(listed.contains(": 0 of 1 file(s), 0 B of 2.1 MB here (0%); last error: /docs/data.bin: file "), listed)
        XCTAssertTrue(listed.contains("hashes to SHA-1"), listed)
        let status = try succeed([try binary, "status", fixture.mountpoint.path])
        XCTAssertTrue(status.contains("      last error: /docs/data.bin: file "), status)
        let cache = try XCTUnwrap(cacheDirectory)
        let blocks = try Shell.run(["sh", "-c", "find \(cache.path)/*/boxfs-layout-2/blocks -type f | wc -l"]).stdout
        XCTAssertEqual(blocks.trimmingCharacters(in: .whitespacesAndNewlines), "0", "no wrong block is kept")
        try api.clearFaults()
        try await waitUntilPinned(fixture, files: 1, timeout: 30)
        let expected = try XCTUnwrap(try api.entry(at: "docs/data.bin")?.sha1)
        XCTAssertEqual(try sha1(fixture.path("docs/data.bin")), expected)
    }

    func testAPinLargerThanThePinBudgetIsRefusedWithOneLineAndNothingIsPinned() async throws {
        let sim = try await startBoxSim(texts: ["fits/a.txt": "a\n"], largeFiles: ["huge/big.bin": 3 << 20])
        let fixture = try mountWritable(options: ["pin_size=2M"])
        let start = try lastSequence(sim)
        let refused = try Shell.run([try binary, "pin", fixture.path("huge")])
        XCTAssertEqual(refused.status, 1)
        XCTAssertEqual(refused.stderr.split(separator: "\n").count, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.hasPrefix("boxfs pin: /huge: not pinned: its files need 3.1 MB on this machine, "
            + "but pinned files have only 2.1 MB left (pin_size=2M)"), refused.stderr)
        XCTAssertEqual(try succeed([try binary, "pinned", fixture.mountpoint.path]), "\(fixture.mountpoint.path): nothing pinned\n")
        XCTAssertNil(try attribute(fixture.path("huge/big.bin"), "user.box.pinned"))
        XCTAssertFalse(try succeed([try binary, "status", fixture.mountpoint.path]).contains("pinned:"))
        try await Task.sleep(for: .seconds(1))
        XCTAssertEqual(try downloadedBytes(after: start, in: sim), 0, "nothing was fetched")
        // What fits is pinned.
        try succeed([try binary, "pin", fixture.path("fits")])
        try await waitUntilPinned(fixture, files: 1)
    }

    func testUnpinReleasesThePinAndItsFilesBecomeOrdinaryCache() async throws {
        try await startBoxSim(texts: ["docs/a.txt": "a\n", "docs/b.txt": "b\n"])
        let fixture = try mountWritable()
        try succeed([try binary, "pin", fixture.path("docs")])
        try await waitUntilPinned(fixture, files: 2)
        let cache = try XCTUnwrap(cacheDirectory)
        let markers = { try Shell.run(["sh", "-c", "ls \(cache.path)/*/boxfs-layout-2/pinned/ | wc -l"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) }
        XCTAssertEqual(try markers(), "2", "both files are pinned in the disk cache")
        let inside = try Shell.run([try binary, "unpin", fixture.path("docs/a.txt")])
        XCTAssertEqual(inside.status, 1)
        XCTAssertEqual(inside.stderr, "boxfs unpin: /docs/a.txt is not pinned itself but as part of /docs; unpin that\n")

        XCTAssertEqual(try succeed([try binary, "unpin", fixture.path("docs")]), "\(fixture.path("docs")): unpinned\n")
        XCTAssertEqual(try succeed([try binary, "pinned", fixture.mountpoint.path]), "\(fixture.mountpoint.path): nothing pinned\n")
        XCTAssertNil(try attribute(fixture.path("docs/a.txt"), "user.box.pinned"))
        XCTAssertFalse(try succeed([try binary, "status", fixture.mountpoint.path]).contains("pinned:"))
        XCTAssertEqual(try markers(), "0", "no file is pinned in the disk cache any more")
        XCTAssertEqual(try succeed(["cat", fixture.path("docs/a.txt")]), "a\n")
        let again = try Shell.run([try binary, "unpin", fixture.path("docs")])
        XCTAssertEqual(again.status, 1)
        XCTAssertEqual(again.stderr, "boxfs unpin: /docs is not pinned\n")
    }

    /// A pin fetches three files at once (`Pinner.filesAtOnce`), not one after another: with every download answered
    /// 2 s late, the first downloads to end are three that ended together, and no fourth one ends with them.
    func testAPinFetchesThreeFilesAtOnce() async throws {
        var texts: [String: String] = [:]
        for index in 0..<6 { texts["docs/f\(index).txt"] = "file \(index)\n" }
        let sim = try await startBoxSim(texts: texts)
        let fixture = try mountWritable()
        try api.addFault(["path_prefix": "/dl/", "latency_ms": 2000])
        let start = try lastSequence(sim)
        try succeed([try binary, "pin", fixture.path("docs")])
        let downloads = { try sim.requestLog().after(start).filter { $0.path.hasPrefix("/dl/") }.count }
        try await Poll.until("the first download to end", timeout: 30, interval: 0.05) { try downloads() > 0 ? true : nil }
        try await Task.sleep(nanoseconds: 1_000_000_000)  // within the next downloads' 2 s
        XCTAssertEqual(try downloads(), 3, "the first three files were fetched at once, and only they")
        try await waitUntilPinned(fixture, files: 6)
    }

    func testPinsSurviveARemount() async throws {
        let sim = try await startBoxSim(texts: ["docs/a.txt": "a\n"], largeFiles: ["docs/big.bin": 2 << 20])
        var fixture = try mountWritable()
        try succeed([try binary, "pin", fixture.path("docs"), fixture.path("docs/a.txt")])
        try await waitUntilPinned(fixture, files: 2)
        fixture.unmount()
        fixture = try mountWritable()
        let listed = try await waitUntilPinned(fixture, files: 2)
        XCTAssertTrue(listed.contains("\(fixture.path("docs/a.txt")): 1 of 1 file(s)"), listed)
        let before = try lastSequence(sim)
        _ = try sha1(fixture.path("docs/big.bin"))
        XCTAssertEqual(try downloadedBytes(after: before, in: sim), 0, "kept across the remount")
        XCTAssertEqual(try attribute(fixture.path("docs/big.bin"), "user.box.pinned"), "/docs")
    }

    func testAPathOutsideABoxfsMountExits2WithOneLine() async throws {
        try await startBoxSim(texts: ["a.txt": "a\n"])
        let fixture = try mountWritable()
        let outside = try makeTemporaryDirectory()
        for command in ["pin", "unpin", "pinned"] {
            let result = try Shell.run([try binary, command, outside.path])
            XCTAssertEqual(result.status, 2, command)
            XCTAssertTrue(result.stderr.hasPrefix("boxfs \(command): \(outside.path) is not in a boxfs mount (it is on "),
                          result.stderr)
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1)
        }
        let missing = try Shell.run([try binary, "pin", fixture.path("nope")])
        XCTAssertEqual(missing.status, 1)
        XCTAssertEqual(missing.stderr, "boxfs pin: \(fixture.path("nope")): No such file or directory\n")
    }
}
