import BoxTestSupport
import Foundation
import XCTest

/// Promises of the read path, proven through a real mount of a real boxsim: bytes are checked against Box's
/// SHA-1, metadata and listings come from cache while fresh, concurrent readers share fetches, the kernel keeps
/// a file's pages across opens, and reads and read-ahead are large.
final class ReadPromiseTests: LoggedMountTestCase {
    // MARK: 1. SHA-1 check of whole reads

    func testAWholeReadThatDoesNotMatchBoxsSHA1FailsWithEIOAndIsFetchedAgainOnceFixed() async throws {
        let size = 3 << 20
        let seed = try SeedTree.make(texts: [:], largeFiles: ["checked.bin": size])
        let expected = try sha1(seed.appendingPathComponent("checked.bin").path)
        let cache = try makeTemporaryDirectory("boxfs-cache")
        let (mount, log) = try await mountWithLogFile(seed: seed, options: ["cache_dir=\(cache.path)"])
        let entry = try XCTUnwrap(try api.entry(at: "checked.bin"))
        XCTAssertEqual(entry.sha1, expected)
        let blob = try blobPath(sha1: expected)

        // The server's copy rots (same length, one byte near the start): Box still reports the old SHA-1.
        try flipByte(at: 1000, of: blob)
        let failure = try Shell.run(["cat", mount.path("checked.bin")])
        XCTAssertNotEqual(failure.status, 0, "reading bytes that do not match Box's SHA-1 must fail")
        XCTAssertTrue(failure.stderr.contains("Input/output error"), "cat: \(failure.stderr)")
        let logged = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        let mismatchLogged = logged.contains {
            $0.contains("file \(entry.id) ") && $0.contains("SHA-1") && $0.contains(expected)
        }
        let tail = logged.suffix(20).joined(separator: "\n")
        XCTAssertTrue(mismatchLogged, "the daemon logs the mismatch of file \(entry.id):\n\(tail)")
        XCTAssertEqual(blockFiles(in: cache).filter { $0.lastPathComponent.hasPrefix("\(entry.id)~") }, [],
                       "no block of the file stays in the disk cache")

        // The server's copy is repaired: the next read fetches the whole file again and gets it right.
        try flipByte(at: 1000, of: blob)
        let before = try lastSequence(try XCTUnwrap(boxsim))
        XCTAssertEqual(try sha1(mount.path("checked.bin")), expected, "after the repair the right bytes are read")
        let fetched = try downloads(after: before)
        XCTAssertEqual(fetched.reduce(0) { $0 + $1.bytesSent }, Int64(size),
                       "every byte was fetched again, none served from a cache: \(fetched.summary)")
    }

    // MARK: 2. stat on a cached tree

    func testStatOfACachedTreeMakesNoRequest() async throws {
        let texts = [
            "a.txt": "a\n", "docs/b.txt": "bb\n", "docs/deep/c.txt": "ccc\n", "docs/deep/er/d.txt": "dddd\n",
            "media/e.txt": "eeeee\n",
        ]
        let seed = try SeedTree.make(texts: texts, largeFiles: ["media/f.bin": 1 << 20])
        // Kernel caching off: every stat below reaches the daemon, which must answer it from its own cache.
        let (mount, _) = try await mountWithLogFile(
            seed: seed, options: ["dir_cache_ttl=600", "entry_timeout=0", "attr_timeout=0"])
        let sim = try XCTUnwrap(boxsim)
        let listing = try succeed(["find", mount.mountpoint.path, "-ls"])
        XCTAssertTrue(listing.contains("deep/er/d.txt"), listing)
        let before = try lastSequence(sim)

        let all = try succeed(["find", mount.mountpoint.path, "-mindepth", "1"]).split(separator: "\n").map(String.init)
        XCTAssertEqual(all.count, texts.count + 1 + 4, "six files and four folders: \(all)")
        for path in all {
            let shown = try succeed(["stat", "-c", "%n %s %F %Y", path])
            XCTAssertTrue(shown.hasPrefix(path + " "), shown)
        }
        let long = try succeed(["ls", "-lR", mount.mountpoint.path])
        XCTAssertTrue(long.contains("d.txt"), long)
        let added = try sim.requestLog().after(before)
        XCTAssertEqual(added.count, 0, "stat and ls of a cached tree made requests:\n\(added.summary)")
    }

    // MARK: 3. Listings cached for dir_cache_ttl

    func testAFolderListingIsTrustedForItsTTL() async throws {
        let seed = try SeedTree.make(texts: ["inbox/first.txt": "1\n"])
        // The TTL alone (events=off): with the event stream, the change below would show at once.
        let (mount, _) = try await mountWithLogFile(seed: seed, options: ["dir_cache_ttl=600", "events=off"])
        let sim = try XCTUnwrap(boxsim)
        XCTAssertEqual(try succeed(["ls", mount.path("inbox")]), "first.txt\n")
        let inbox = try XCTUnwrap(try api.entry(at: "inbox"))
        try uploadNewFile(named: "second.txt", text: "2\n", parentID: inbox.id)
        let before = try lastSequence(sim)

        // Well past the kernel's own timeouts (1 s), so the daemon is asked again.
        try await Task.sleep(nanoseconds: 2_500_000_000)
        XCTAssertEqual(try succeed(["ls", mount.path("inbox")]), "first.txt\n", "a fresh listing is not fetched again")
        let added = try sim.requestLog().after(before)
        XCTAssertEqual(added.count, 0, "a fresh listing costs no request:\n\(added.summary)")
    }

    func testAFolderListingIsFetchedAgainOnceItsTTLHasPassed() async throws {
        let seed = try SeedTree.make(texts: ["inbox/first.txt": "1\n"])
        let (mount, _) = try await mountWithLogFile(seed: seed, options: ["dir_cache_ttl=2", "events=off"])
        let sim = try XCTUnwrap(boxsim)
        XCTAssertEqual(try succeed(["ls", mount.path("inbox")]), "first.txt\n")
        let inbox = try XCTUnwrap(try api.entry(at: "inbox"))
        let before = try lastSequence(sim)
        try uploadNewFile(named: "second.txt", text: "2\n", parentID: inbox.id)

        try await Poll.until("second.txt to be listed", timeout: 30, interval: 0.25) {
            try self.succeed(["ls", self.mount!.path("inbox")]) == "first.txt\nsecond.txt\n" ? true : nil
        }
        XCTAssertEqual(try succeed(["cat", mount.path("inbox/second.txt")]), "2\n")
        let listings = try sim.requestLog().after(before).matching("GET", "/2.0/folders/\(inbox.id)/items")
        XCTAssertFalse(listings.isEmpty, "the folder was listed again")
    }
}
