import BoxTestSupport
import Foundation
import XCTest

/// Downloads that stalled while the server did not answer are dropped, not waited for: once it answers again,
/// the next read starts a fresh range request at once (docs/SEMANTICS.md "A server that hangs").
final class StallRecoveryTests: LoggedMountTestCase {


    /// `dd` of the 1 MiB block `block` of `path` (to `output`, else nowhere).
    private func readBlock(_ block: Int, of path: String, to output: String = "/dev/null") -> [String] {
        ["dd", "if=\(path)", "of=\(output)", "bs=1M", "skip=\(block)", "count=1", "status=none"]
    }

    /// The download host stalls (answers nothing). `cat` of a 1 MiB file sends one fetch; 10 s later a read of
    /// block 2 of another file sends more, which the first fetch's stall (stall_timeout=12) drops with it, failing
    /// that read too. Then the server answers again: a read of that block, a whole read of its file and of a third
    /// file start fresh range requests at once instead of waiting for the silent fetches to stall in turn (10 s after
    /// the first here, up to stall_timeout), and return the right bytes.
    func testReadsAfterAStalledServerAnswersAgainStartFreshRequestsAtOnce() async throws {
        let seed = try SeedTree.make(texts: [:], largeFiles: ["a.bin": 1 << 20, "b.bin": 8 << 20, "c.bin": 4 << 20])
        let content = try Data(contentsOf: seed.appendingPathComponent("b.bin"))
        let expectedB = try sha1(seed.appendingPathComponent("b.bin").path)
        let expectedC = try sha1(seed.appendingPathComponent("c.bin").path)
        let mount = try await mountWithLog(seed: seed, options: ["stall_timeout=12", "cache=off"])
        XCTAssertTrue(try succeed(["ls", mount.mountpoint.path]).contains("a.bin"))
        let sim = try XCTUnwrap(boxsim)
        _ = try api.stallResponses(pathPrefix: "/dl/")

        let started = Date()
        let cat = try Spawned(["cat", mount.path("a.bin")])
        try await Task.sleep(for: .seconds(10))
        let lateRead = try Spawned(readBlock(2, of: mount.path("b.bin")))
        try await Poll.until("cat to fail on the stall", timeout: 30, interval: 0.1) { cat.isGone ? true : nil }
        XCTAssertNotEqual(cat.status, 0, "a stalled download fails the read")
        XCTAssertTrue(cat.stderr.contains("Input/output error"), cat.stderr)
        print("StallRecoveryTests: cat failed after \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
        try await Task.sleep(for: .seconds(3))
        try api.clearFaults()
        let recovered = try lastSequence(sim)

        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("stall-block-\(UUID().uuidString)")
        temporaryDirectories.append(copy)
        var begun = Date()
        let block = try Shell.run(readBlock(2, of: mount.path("b.bin"), to: copy.path), timeout: 60)
        let blockTook = Date().timeIntervalSince(begun)
        begun = Date()
        let hashB = try sha1(mount.path("b.bin"))
        let wholeTook = Date().timeIntervalSince(begun)
        begun = Date()
        let hashC = try sha1(mount.path("c.bin"))
        let otherTook = Date().timeIntervalSince(begun)
        print("StallRecoveryTests: after the server answered again, block 2 of b.bin read in \(String(format: "%.2f", blockTook)) s, "
              + "b.bin whole in \(String(format: "%.2f", wholeTook)) s, c.bin whole in \(String(format: "%.2f", otherTook)) s")
        XCTAssertEqual(block.status, 0, block.stderr)
        XCTAssertEqual(try Data(contentsOf: copy), content[2 << 20..<3 << 20], "block 2 reads back right")
        XCTAssertEqual(hashB, expectedB, "b.bin reads back right")
        XCTAssertEqual(hashC, expectedC, "c.bin reads back right")
        XCTAssertLessThan(blockTook, 5, "the read does not wait for the fetch that stalled with the first one")
        XCTAssertLessThan(wholeTook + otherTook, 5, "nor do whole reads")

        let fresh = try sim.requestLog().after(recovered).filter { $0.path.hasPrefix("/dl/") && $0.status == 206 }
        XCTAssertTrue(fresh.contains { $0.byteRange.map { $0.contains(2 << 20) } ?? false },
                      "a new range request for block 2 after the server answered again: \(fresh.summary)")
        try await Poll.until("the later read to end", timeout: 30, interval: 0.1) { lateRead.isGone ? true : nil }
        XCTAssertNotEqual(lateRead.status, 0, "the read whose fetch was sent into the stalled server failed")
    }

    /// A server that accepts connections and never answers (every path stalls): the first read fails after
    /// stall_timeout (10 s here); the reads after it probe the server for 2 s each rather than waiting the whole
    /// timeout again (10.5 s each before), and once it answers again the next read works at once, not held by a
    /// download-location look-up sent into the stall ahead of it.
    func testWhileTheServerStallsReadsAfterTheFirstStallFailWithinSecondsAndWorkOnceItAnswers() async throws {
        let seed = try SeedTree.make(
            texts: [:], largeFiles: ["x1.bin": 1 << 20, "x2.bin": 1 << 20, "x3.bin": 1 << 20, "x4.bin": 1 << 20])
        let expected = try sha1(seed.appendingPathComponent("x4.bin").path)
        let mount = try await mountWithLog(seed: seed, options: ["stall_timeout=10", "cache=off"])
        XCTAssertTrue(try succeed(["ls", "-l", mount.mountpoint.path]).contains("x1.bin"))
        _ = try api.stallResponses()

        var begun = Date()
        let first = try Shell.run(["cat", mount.path("x1.bin")], timeout: 120)
        let firstTook = Date().timeIntervalSince(begun)
        begun = Date()
        let second = try Shell.run(["cat", mount.path("x2.bin")], timeout: 120)
        let secondTook = Date().timeIntervalSince(begun)
        // Read file after file, the folder's next files have their download locations asked for ahead of their reads.
        let third = try Shell.run(["cat", mount.path("x3.bin")], timeout: 120)
        XCTAssertNotEqual(third.status, 0)
        try api.clearFaults()
        begun = Date()
        let after = try sha1(mount.path("x4.bin"))
        let afterTook = Date().timeIntervalSince(begun)
        print("StallRecoveryTests: while everything stalls, a first read failed after \(String(format: "%.2f", firstTook)) s, "
              + "the next after \(String(format: "%.2f", secondTook)) s; once the server answered, a read took \(String(format: "%.2f", afterTook)) s")
        XCTAssertNotEqual(first.status, 0)
        XCTAssertTrue(first.stderr.contains("Input/output error"), first.stderr)
        XCTAssertNotEqual(second.status, 0)
        XCTAssertTrue(second.stderr.contains("Input/output error"), second.stderr)
        XCTAssertLessThan(secondTook, 5, "a read after the first stall fails within the probe (2 s), not stall_timeout (10 s)")
        XCTAssertEqual(after, expected, "once the server answers, a read returns the right bytes")
        XCTAssertLessThan(afterTook, 3, "at once")
    }
}
