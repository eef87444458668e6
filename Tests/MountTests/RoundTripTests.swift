import BoxTestSupport
import Foundation
import XCTest

/// Round trips counted (issue 29, item 1): what boxsim receives for each user-level operation, against the fewest
/// requests Box's API allows for it. On a link of 50 ms round trip each request is at least 50 ms, so a request
/// more than the minimum is latency every user of the operation pays. Each test runs its operation on a mount whose
/// listings are already cached where the operation's minimum assumes it (`events=off`, so the event stream adds no
/// request of its own; `write_back_delay=0`, so an upload follows the close at once), waits until boxsim has been
/// quiet for a second, and compares every request logged since with the minimum, printing them when they differ.
final class RoundTripTests: MountTestCase {
    static let files: [String: String] = [
        "dir/a.txt": "alpha\n", "dir/b.txt": "bravo\n", "dir/c.txt": "charlie\n",
        "other/x.txt": "x-ray\n", "other/y.txt": "yankee\n",
    ]

    /// When the last `mountWithTree` mounted (the daemon's start-up check of the account is then the quota's).
    var mountedAt = Date()

    func mountWithTree() async throws -> (MountFixture, BoxSimProcess) {
        let seed = try SeedTree.make(texts: Self.files, largeFiles: ["dir/big.bin": 6 << 20])
        let mount = try await mountBoxSim(seed: seed, options: ["events=off", "write_back_delay=0"])
        mountedAt = Date()
        return (mount, try XCTUnwrap(boxsim))
    }

    /// Runs `script` (bash, `$M` the mount point) and returns the requests boxsim logged from its start until it had
    /// been quiet for a second (at most 20 s).
    func requests(of script: String, mount: MountFixture, sim: BoxSimProcess) throws -> [LoggedRequest] {
        let mark = try lastSequence(sim)
        let result = try Shell.bash(script, environment: ["M": mount.mountpoint.path], timeout: 60)
        XCTAssertEqual(result.status, 0, "\(script): \(result.stderr)")
        let deadline = Date().addingTimeInterval(20)
        var last = try lastSequence(sim)
        repeat {
            Thread.sleep(forTimeInterval: 1)
            let now = try lastSequence(sim)
            if now == last { break }
            last = now
        } while Date() < deadline
        return try sim.requestLog().after(mark)
    }

    /// The requests as "METHOD path" with ids and download tokens replaced, in the order sent.
    func shapes(_ requests: [LoggedRequest]) -> [String] {
        requests.map { request in
            let path = request.path.split(separator: "/").map { part in
                part.allSatisfy(\.isNumber) ? "ID" : part
            }.joined(separator: "/")
            return request.method + " " + (path.hasPrefix("dl/") || path.hasPrefix("/dl/") ? "/dl/…" : "/" + path)
        }
    }

    /// The quota check of a write that grows a file (`FileSystem.checkSpace`) measures it against the account as
    /// the mount's start-up check found it, and fetches it again only in the background once it is 10 s old,
    /// which the writer does not wait for. Allowed in the log only when the operation ran that long after the mount.
    static let quotaCheck = "GET /2.0/users/me"

    /// `quotaCheck` when the account may have been fetched again in the background by now, else nothing.
    var backgroundQuotaCheck: [String] { Date().timeIntervalSince(mountedAt) > 8 ? [Self.quotaCheck] : [] }

    func assertMinimum(_ requests: [LoggedRequest], _ minimum: [String], _ operation: String, known: [String] = [],
                       file: StaticString = #filePath, line: UInt = #line) {
        var seen = shapes(requests)
        for extra in known {
            if let index = seen.firstIndex(of: extra) { seen.remove(at: index) }
        }
        XCTAssertEqual(seen, minimum,
                       "\(operation): \(requests.count) requests, the minimum is \(minimum.count):\n\(requests.summary)",
                       file: file, line: line)
    }

    /// The first byte of a file of a listed folder whose content was never read: where its content is (the content
    /// call, answered with a redirect) and the range. Nothing at open, no second range before the reader wants it.
    func testTheFirstByteOfAnUncachedFileInAListedFolderCostsTheContentCallAndOneRange() async throws {
        let (mount, sim) = try await mountWithTree()
        _ = try succeed(["ls", "-l", mount.path("dir")])
        let requests = try requests(of: "head -c 1 \"$M/dir/big.bin\" > /dev/null", mount: mount, sim: sim)
        assertMinimum(requests, ["GET /2.0/files/ID/content", "GET /dl/…"], "head -c 1 of an uncached file")
    }

    /// `stat` of a file whose folder is listed: answered from the listing.
    func testStatOfAFileInAListedFolderAsksNothing() async throws {
        let (mount, sim) = try await mountWithTree()
        _ = try succeed(["ls", "-l", mount.path("dir")])
        let requests = try requests(of: "stat \"$M/dir/a.txt\" > /dev/null", mount: mount, sim: sim)
        assertMinimum(requests, [], "stat in a listed folder")
    }

    /// `ls -l` of a folder never listed (fewer than 1,000 entries): one listing page, with every attribute `ls -l`
    /// shows in it (no call per file).
    func testLsOfAFolderNotYetListedIsOneListingCall() async throws {
        let (mount, sim) = try await mountWithTree()
        _ = try succeed(["stat", mount.path("other")])
        let requests = try requests(of: "ls -l \"$M/other\" > /dev/null", mount: mount, sim: sim)
        assertMinimum(requests, ["GET /2.0/folders/ID/items"], "ls -l of an unlisted folder")
    }

    /// Opening an existing file for writing with `O_TRUNC` and writing it: no request before the close (nothing of
    /// the old content is needed), then the new version's upload.
    func testOpeningForWritingWithTruncationSendsOnlyTheUpload() async throws {
        let (mount, sim) = try await mountWithTree()
        _ = try succeed(["ls", "-l", mount.path("dir")])
        let requests = try requests(of: "printf new > \"$M/dir/a.txt\"", mount: mount, sim: sim)
        assertMinimum(requests, ["POST /api/2.0/files/ID/content"], "open O_TRUNC, write, close",
                      known: backgroundQuotaCheck)
    }

    /// Opening an existing file for appending: its content is needed (the content call and one range for a small
    /// file), then the new version's upload.
    func testOpeningForAppendingFetchesTheContentOnceAndSendsTheUpload() async throws {
        let (mount, sim) = try await mountWithTree()
        _ = try succeed(["ls", "-l", mount.path("dir")])
        let requests = try requests(of: "printf more >> \"$M/dir/b.txt\"", mount: mount, sim: sim)
        assertMinimum(requests, ["GET /2.0/files/ID/content", "GET /dl/…", "POST /api/2.0/files/ID/content"],
                      "open O_APPEND, write, close", known: backgroundQuotaCheck)
    }

    /// A new file in a listed folder: one upload (the listing already says the name is free: no preflight).
    func testCreatingAFileSendsOneUpload() async throws {
        let (mount, sim) = try await mountWithTree()
        _ = try succeed(["ls", "-l", mount.path("dir")])
        let requests = try requests(of: "printf hello > \"$M/dir/new.txt\"", mount: mount, sim: sim)
        assertMinimum(requests, ["POST /api/2.0/files/content"], "create, write, close", known: backgroundQuotaCheck)
    }

    /// A rename within a listed folder: one update of the file.
    func testARenameIsOneCall() async throws {
        let (mount, sim) = try await mountWithTree()
        _ = try succeed(["ls", "-l", mount.path("dir")])
        let requests = try requests(of: "mv \"$M/dir/c.txt\" \"$M/dir/d.txt\"", mount: mount, sim: sim)
        assertMinimum(requests, ["PUT /2.0/files/ID"], "mv within a folder")
    }

    /// A small file of a listed folder read whole: the content call and one range.
    func testReadingASmallFileIsTheContentCallAndOneRange() async throws {
        let (mount, sim) = try await mountWithTree()
        _ = try succeed(["ls", "-l", mount.path("dir")])
        let requests = try requests(of: "cat \"$M/dir/a.txt\" > /dev/null", mount: mount, sim: sim)
        assertMinimum(requests, ["GET /2.0/files/ID/content", "GET /dl/…"], "cat of a small file")
    }
}
