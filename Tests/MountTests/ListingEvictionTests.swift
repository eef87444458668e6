import BoxTestSupport
import Foundation
import XCTest

/// Listings follow the working set: those of folders the kernel forgot are dropped (so `drop_caches` gives the
/// memory back), the cached ones stay under `listing_cache_entries`, and a folder listed again after either shows
/// exactly what Box holds, read back from the tree on disk with no request (`DiskTreeCacheTests`: and from Box when
/// a change made the disk's copy untrue).
final class ListingEvictionTests: MountTestCase {
    static let listPattern = "/2.0/folders/[0-9]+/items"

    /// Seeds `folderCount` folders of `fileCount` files each (sizes differ file to file) and mounts them.
    func mountFolders(_ folderCount: Int, files fileCount: Int, options: [String] = []) async throws -> MountFixture {
        var texts: [String: String] = [:]
        for folder in 0..<folderCount {
            for file in 0..<fileCount {
                texts[String(format: "d%02d/f%03d.txt", folder, file)] = String(repeating: "x", count: folder + file)
            }
        }
        let mount = try await mountBoxSim(seed: try SeedTree.make(texts: texts), options: options)
        // Until the event stream is caught up its start may drop every listing (see `EventFollower`).
        try await Poll.until("the event stream to be followed", timeout: 30) {
            try self.status(mount)["events"] as? String == "following" ? true : nil
        }
        return mount
    }

    /// `boxfs status MOUNTPOINT --json`, parsed.
    func status(_ fixture: MountFixture) throws -> [String: Any] {
        let output = try succeed([try MountFixture.locateBinary().path, "status", fixture.mountpoint.path, "--json"])
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], output)
    }

    func cachedEntries(_ fixture: MountFixture) throws -> Int {
        try XCTUnwrap((try status(fixture)["cached_listing_entries"] as? NSNumber)?.intValue, "no cached_listing_entries")
    }

    /// Every file below `folder` (a path below the mount) as `path size`, sorted, as the mount shows them (`ls -l`
    /// of each folder: a readdir, then a lookup of each name).
    func shown(_ fixture: MountFixture, folders: [String]) throws -> [String] {
        try folders.flatMap { folder in
            try succeed(["ls", "-ln", fixture.path(folder)]).split(separator: "\n").dropFirst().map { line in
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                return "\(folder)/\(fields[8]) \(fields[4])"
            }
        }.sorted()
    }

    /// The same, as Box holds them.
    func onBox(folders: [String]) throws -> [String] {
        let tree = try BoxSimAPI(try XCTUnwrap(boxsim)).tree()
        return tree.filter { path, entry in !entry.isFolder && folders.contains { path.hasPrefix($0 + "/") } }
            .map { "\($0.key) \($0.value.size)" }.sorted()
    }

    func listingRequests(after mark: Int) throws -> [LoggedRequest] {
        try XCTUnwrap(boxsim).requestLog().after(mark).matching("GET", Self.listPattern)
    }

    func testListingsOfFoldersTheKernelForgotAreDroppedAndReadBackFromTheDisk() async throws {
        let mount = try await mountFolders(20, files: 50)
        let folders = (0..<20).map { String(format: "d%02d", $0) }
        let expected = try onBox(folders: folders)
        XCTAssertEqual(try shown(mount, folders: folders), expected)
        XCTAssertEqual(try cachedEntries(mount), 20 + 20 * 50, "the root's listing and every folder's")

        try succeed(["sh", "-c", "sync; echo 3 > /proc/sys/vm/drop_caches"])
        // The kernel sends its forgets as it drops inodes: the folders' listings go, the root's stays.
        try await Poll.until("the forgotten folders' listings to be dropped", timeout: 20) {
            try self.cachedEntries(mount) == 20 ? true : nil
        }
        let nodes = try XCTUnwrap((try status(mount)["nodes"] as? NSNumber)?.intValue)
        XCTAssertLessThan(nodes, 20, "the kernel's forgotten nodes are gone too")

        let mark = try lastSequence(try XCTUnwrap(boxsim))
        XCTAssertEqual(try shown(mount, folders: folders), expected, "listed again, nothing lost")
        let listed = try listingRequests(after: mark)
        XCTAssertEqual(listed.count, 0, "read back from the tree on disk: \(listed.map(\.path))")
    }

    func testCachedListingsStayUnderTheBudgetLeastRecentlyUsedFirst() async throws {
        let mount = try await mountFolders(10, files: 50, options: ["listing_cache_entries=120"])
        let folders = (0..<10).map { String(format: "d%02d", $0) }
        let expected = try onBox(folders: folders)
        XCTAssertEqual(try shown(mount, folders: folders), expected)
        let cached = try cachedEntries(mount)
        XCTAssertLessThanOrEqual(cached, 120, "10 folders of 50 listed, budget 120")
        XCTAssertGreaterThanOrEqual(cached, 60, "the root's listing and the last folder's stay")

        // The last folder listed is still cached; the first, least recently used, was dropped: read back from the disk.
        // (Box's side is read before each mark: boxsim logs those listings too.)
        let (first, last) = (try onBox(folders: ["d00"]), try onBox(folders: ["d09"]))
        var mark = try lastSequence(try XCTUnwrap(boxsim))
        XCTAssertEqual(try shown(mount, folders: ["d09"]), last)
        XCTAssertEqual(try listingRequests(after: mark).count, 0, "d09 was listed last: still cached")
        mark = try lastSequence(try XCTUnwrap(boxsim))
        XCTAssertEqual(try shown(mount, folders: ["d00"]), first)
        XCTAssertEqual(try listingRequests(after: mark).count, 0, "d00 was evicted: read back from the tree on disk")
        XCTAssertLessThanOrEqual(try cachedEntries(mount), 120)
    }

    func testAFolderOpenForReadingKeepsItsListingPastTheBudget() async throws {
        let mount = try await mountFolders(10, files: 50, options: ["listing_cache_entries=120"])
        let expected = try onBox(folders: ["d00"])
        // d00 stays open (its listing fetched by opendir) while the nine others are listed: it is the least
        // recently used listing each time the budget is passed, and must be kept while it is open.
        let script = """
            import os, subprocess, sys
            fd = os.open(sys.argv[1] + "/d00", os.O_RDONLY | os.O_DIRECTORY)
            for index in range(1, 10):
                subprocess.run(["ls", "-l", sys.argv[1] + "/d%02d" % index], check=True, stdout=subprocess.DEVNULL)
            os.close(fd)
            """
        try succeed(["python3", "-c", script, mount.mountpoint.path])
        XCTAssertLessThanOrEqual(try cachedEntries(mount), 120 + 50, "the budget, and the open folder's listing past it")

        let mark = try lastSequence(try XCTUnwrap(boxsim))
        XCTAssertEqual(try shown(mount, folders: ["d00"]), expected)
        XCTAssertEqual(try listingRequests(after: mark).count, 0, "d00 was open: its listing was kept")
    }
}
