import BoxTestSupport
import Foundation
import XCTest

/// The tree on disk (docs/SEMANTICS.md "The tree on disk"): a remount starts from the listings the last mount held
/// and catches up on the event stream from the position they reflect; a mount starts offline from it when Box does
/// not answer; a kill -9 leaves a database the next mount opens.
final class DiskTreeTests: EventStreamTestCase {
    private static let tree = ["a.txt": "a\n", "sub/b.txt": "b\n", "sub/deeper/c.txt": "c\n", "other/d.txt": "d\n"]

    private func listRecursively(_ fixture: MountFixture) throws -> String {
        try succeed(["ls", "-R", fixture.mountpoint.path]).replacingOccurrences(of: fixture.mountpoint.path, with: "MNT")
    }

    /// A mount that listed a tree, unmounted, mounted again: the first `ls -R` answers from the tree on disk (caught
    /// up on the stream) and asks Box for no folder's items.
    func testARemountListsNoFolderAgainWhenNothingChanged() async throws {
        let sim = try await startBoxSim(texts: Self.tree)
        let first = try mountWritable()
        var before = try lastSequence(sim)
        let shown = try listRecursively(first)
        let firstListings = try sim.requestLog().after(before).filter { Self.isListing($0) }.count
        try await waitUntilFollowing(first)
        try await unmountAndWait(first)

        let second = try mountWritable()
        before = try lastSequence(sim)
        XCTAssertEqual(try listRecursively(second), shown)
        let listings = try sim.requestLog().after(before).filter { Self.isListing($0) }
        print("DiskTreeTests: the first ls -R listed \(firstListings) folders on the first mount, \(listings.count) after the remount")
        XCTAssertEqual(listings.count, 0, "folders listed again: \(listings.map(\.path))")
    }

    /// A file added on Box while nothing was mounted shows at the first `ls` after the remount: the catch-up drops the
    /// listing it changed before anything is answered from it.
    func testAFileAddedOnBoxWhileUnmountedShowsAtTheFirstListingAfterTheRemount() async throws {
        let sim = try await startBoxSim(texts: Self.tree)
        let first = try mountWritable()
        XCTAssertEqual(try names(first, "sub"), ["b.txt", "deeper"])
        try await waitUntilFollowing(first)
        try await unmountAndWait(first)
        let sub = try XCTUnwrap(try api.entry(at: "sub"))
        try api.uploadFile(named: "added.txt", text: "added\n", parentID: sub.id)

        let second = try mountWritable()
        let before = try lastSequence(sim)
        XCTAssertEqual(try names(second, "sub"), ["added.txt", "b.txt", "deeper"])
        XCTAssertEqual(try succeed(["cat", second.path("sub/added.txt")]), "added\n")
        let listings = try sim.requestLog().after(before).filter { Self.isListing($0) }
        XCTAssertEqual(listings.map(\.path), ["/2.0/folders/\(sub.id)/items"], "only the changed folder is listed")
    }

    /// A kept position Box refuses drops the kept listings, on disk too: a folder the refusing mount never listed is
    /// not shown by a later mount as it was before (its file added meanwhile, whose event Box lost, shows).
    func testAPositionBoxRefusesDropsTheKeptListingsOnDiskToo() async throws {
        try await startBoxSim(texts: ["a.txt": "a\n", "sub/s.txt": "s\n"])
        let first = try mountWritable()
        XCTAssertEqual(try names(first, "sub"), ["s.txt"])
        try await waitUntilFollowing(first)
        try await unmountAndWait(first)
        let sub = try XCTUnwrap(try api.entry(at: "sub"))
        try api.setEventFaults(drop: 1)
        try api.uploadFile(named: "b.txt", text: "b\n", parentID: sub.id)  // its event is lost
        try api.addFault(["path_prefix": "/2.0/events", "method": "GET", "error_status": 400, "error_rate": 1, "count": 1])

        let refused = try mountWritable()  // its catch-up is refused: it starts at now, dropping what it kept
        XCTAssertEqual(try names(refused), ["a.txt", "sub"])
        try await waitUntilFollowing(refused)
        try await unmountAndWait(refused)

        let third = try mountWritable()
        XCTAssertEqual(try names(third, "sub"), ["b.txt", "s.txt"])
    }

    /// After a kill the saved position may be past what the kept listings hold (it is saved after each page, the tree
    /// once a second): then the kept listings are not used, and a change whose event lies before that position shows.
    func testKeptListingsBehindTheSavedPositionAreNotUsed() async throws {
        let sim = try await startBoxSim(texts: Self.tree)
        let first = try mountWritable()
        XCTAssertEqual(try names(first, "sub"), ["b.txt", "deeper"])
        try await waitUntilFollowing(first)
        try await Task.sleep(nanoseconds: 2_500_000_000)  // the once-a-second write has run since
        try await crash(first)
        let sub = try XCTUnwrap(try api.entry(at: "sub"))
        try api.uploadFile(named: "added.txt", text: "added\n", parentID: sub.id)
        // The position saved past the upload's event, as if the page that brought it was saved and the tree was not.
        let cache = try XCTUnwrap(cacheDirectory)
        let positionFile = try XCTUnwrap(FileManager.default.enumerator(atPath: cache.path)?
            .compactMap { $0 as? String }.first { $0.hasSuffix(".position") })
        let latest = try XCTUnwrap(
            (try api.call("GET", "/2.0/events?stream_position=now")["next_stream_position"] as? NSNumber)?.stringValue)
        try Data("\(latest)\n".utf8).write(to: cache.appendingPathComponent(positionFile))

        let second = try mountWritable()
        let before = try lastSequence(sim)
        XCTAssertEqual(try names(second, "sub"), ["added.txt", "b.txt", "deeper"])
        XCTAssertEqual(try sim.requestLog().after(before).filter { Self.isListing($0, folderID: sub.id) }.count, 1)
    }

    /// Box unreachable at start: the mount starts anyway, says so in one line, shows the tree as last seen, reads a
    /// file read whole before byte-exact, and a file written meanwhile goes up once Box answers again.
    func testWithBoxUnreachableTheMountStartsOfflineFromTheTreeOnDisk() async throws {
        let (sim, data) = try await startBoxSimKeepingItsData(texts: Self.tree)
        let first = try mountWritable()
        let shown = try listRecursively(first)
        XCTAssertEqual(try succeed(["cat", first.path("sub/deeper/c.txt")]), "c\n")
        try await waitUntilFollowing(first)
        try await unmountAndWait(first)
        sim.stop()

        let started = Date()
        let offline = try mountWritable()
        let took = Date().timeIntervalSince(started)
        print("DiskTreeTests: mounted without Box in \(String(format: "%.1f", took)) s: \(offline.mountOutput)")
        let lines = offline.mountOutput.split(separator: "\n").filter { $0.contains("offline") }
        XCTAssertEqual(lines.count, 1, offline.mountOutput)
        XCTAssertTrue(
            lines.first?.contains("mounted box: on \(offline.mountpoint.path), offline: Box is unreachable (") == true
                && lines.first?.hasSuffix("); showing the tree as last seen") == true, offline.mountOutput)
        XCTAssertEqual(try listRecursively(offline), shown)
        XCTAssertEqual(try succeed(["cat", offline.path("sub/deeper/c.txt")]), "c\n")
        try write("written offline\n", to: offline.path("sub/new.txt"))

        try await restartBoxSim(sim, on: data)
        try await Poll.until("new.txt on Box", timeout: 30, interval: 0.5) {
            try self.api.entry(at: "sub/new.txt") != nil ? true : nil
        }
    }

    /// Changes made offline survive a kill -9 and a remount that is still offline (the journal shows them over the
    /// tree on disk), and go up once Box answers again, nothing lost.
    func testChangesMadeOfflineSurviveAKillAndAnOfflineRemountAndGoUpWhenBoxAnswers() async throws {
        let (sim, data) = try await startBoxSimKeepingItsData(texts: Self.tree)
        let first = try mountWritable()
        _ = try listRecursively(first)
        try await waitUntilFollowing(first)
        try await unmountAndWait(first)
        sim.stop()

        let offline = try mountWritable()
        XCTAssertTrue(offline.mountOutput.contains("offline: Box is unreachable"), offline.mountOutput)
        try write("one\n", to: offline.path("sub/one.txt"))
        try write("two\n", to: offline.path("other/two.txt"))
        try write("a, rewritten\n", to: offline.path("a.txt"))  // O_TRUNC: nothing of Box's content needed
        try await crash(offline)

        let again = try mountWritable()
        XCTAssertTrue(again.mountOutput.contains("offline: Box is unreachable"), again.mountOutput)
        XCTAssertEqual(try succeed(["cat", again.path("sub/one.txt")]), "one\n")
        XCTAssertEqual(try succeed(["cat", again.path("other/two.txt")]), "two\n")
        XCTAssertEqual(try succeed(["cat", again.path("a.txt")]), "a, rewritten\n")

        try await restartBoxSim(sim, on: data)
        let api = try self.api
        for (path, text) in ["sub/one.txt": "one\n", "other/two.txt": "two\n", "a.txt": "a, rewritten\n"] {
            try await Poll.until("\(path) on Box", timeout: 30, interval: 0.5) {
                try api.entry(at: path).map { try api.text(of: $0.id) } == text ? true : nil
            }
        }
        XCTAssertEqual(try succeed(["cat", again.path("sub/deeper/c.txt")]), "c\n", "Box's own content reads again")
    }

    /// Nothing ever kept for this server: Box unreachable at start still fails the mount with one line.
    func testWithBoxUnreachableAndNothingKeptTheMountFailsWithOneLine() async throws {
        let sim = try await startBoxSim(texts: Self.tree)
        sim.stop()
        XCTAssertThrowsError(try mountWritable()) { error in
            XCTAssertTrue("\(error)".contains("cannot reach Box at"), "\(error)")
        }
    }

    /// A kill -9 of the daemon leaves a tree on disk that the next mount opens and starts from.
    func testAKilledDaemonLeavesATreeTheNextMountStartsFrom() async throws {
        let sim = try await startBoxSim(texts: Self.tree)
        let first = try mountWritable()
        let shown = try listRecursively(first)
        try await waitUntilFollowing(first)
        try await Task.sleep(nanoseconds: 2_500_000_000)  // the once-a-second write has run since
        try await crash(first)
        let database = try XCTUnwrap(
            FileManager.default.enumerator(atPath: try XCTUnwrap(cacheDirectory).path)?
                .compactMap { $0 as? String }.first { $0.hasSuffix(".sqlite") && $0.contains("tree-") })
        let check = try Shell.run(
            ["sqlite3", try XCTUnwrap(cacheDirectory).appendingPathComponent(database).path, "PRAGMA integrity_check"])
        XCTAssertEqual(check.stdout, "ok\n", check.stderr)

        let second = try mountWritable()
        let before = try lastSequence(sim)
        XCTAssertEqual(try listRecursively(second), shown)
        let listings = try sim.requestLog().after(before).filter { Self.isListing($0) }
        XCTAssertEqual(listings.count, 0, "folders listed again: \(listings.map(\.path))")
    }
}

/// With `events=off` a listing kept on disk counts as listed when Box listed it: the remount answers from it until
/// `dir_cache_ttl` has passed since then, not since the remount.
final class DiskTreeWithoutEventsTests: EventStreamTestCase {
    func testWithoutEventsAKeptListingIsTrustedForDirCacheTTLFromWhenBoxListedIt() async throws {
        let sim = try await startBoxSim(texts: ["a.txt": "a\n", "sub/b.txt": "b\n"])
        let options = ["events=off", "dir_cache_ttl=5"]
        let first = try mountWritable(options: options)
        XCTAssertEqual(try names(first), ["a.txt", "sub"])
        let listed = Date()
        try await unmountAndWait(first)
        try await Task.sleep(nanoseconds: 2_000_000_000)  // the remount is well after the listing

        let second = try mountWritable(options: options)
        var before = try lastSequence(sim)
        XCTAssertEqual(try names(second), ["a.txt", "sub"])
        XCTAssertEqual(try sim.requestLog().after(before).filter { Self.isListing($0, folderID: "0") }.count, 0,
                       "a listing kept 5 s is trusted across the remount")
        try await Task.sleep(nanoseconds: UInt64(max(0, 5.5 - Date().timeIntervalSince(listed)) * 1e9))
        before = try lastSequence(sim)
        XCTAssertEqual(try names(second), ["a.txt", "sub"])
        XCTAssertEqual(try sim.requestLog().after(before).filter { Self.isListing($0, folderID: "0") }.count, 1,
                       "listed again once dir_cache_ttl passed since Box listed it")
    }
}

/// The memory tree is a cache of the tree on disk: a listing evicted from memory (`listing_cache_entries`) is read
/// back from the disk at its next use, with no call to Box, unless a change made since could make it untrue; then Box
/// lists it, and what shows is what Box holds.
final class DiskTreeCacheTests: EventStreamTestCase {
    private static let folders = (0..<6).map { "f\($0)" }

    func testAnEvictedListingIsReadBackFromTheDiskAndOneAChangeMadeUntrueIsListedByBox() async throws {
        var texts: [String: String] = [:]
        for (index, folder) in Self.folders.enumerated() {
            texts["\(folder)/a\(index).txt"] = "a\n"
            texts["\(folder)/b\(index).txt"] = "b\n"
        }
        let sim = try await startBoxSim(texts: texts)
        // The root's 6 entries alone pass the budget: every listing fetched evicts all but the root's and its own.
        let mount = try mountWritable(options: ["listing_cache_entries=4"])
        try await waitUntilFollowing(mount)
        for (index, folder) in Self.folders.enumerated() {
            XCTAssertEqual(try names(mount, folder), ["a\(index).txt", "b\(index).txt"])
        }
        var before = try lastSequence(sim)
        for (index, folder) in Self.folders.enumerated().reversed() {
            XCTAssertEqual(try names(mount, folder), ["a\(index).txt", "b\(index).txt"])
        }
        let again = try sim.requestLog().after(before).filter { Self.isListing($0) }
        XCTAssertEqual(again.map(\.path), [], "every evicted listing read back from the disk")

        // Changed on Box, each in a folder whose listing memory has evicted by now (f0 was read last).
        let ids = try Dictionary(uniqueKeysWithValues: Self.folders.map { ($0, try XCTUnwrap(try api.entry(at: $0)).id) })
        try api.moveFile(try XCTUnwrap(try api.entry(at: "f1/a1.txt")).id, toFolder: ids["f2"]!)
        try api.renameFile(try XCTUnwrap(try api.entry(at: "f3/a3.txt")).id, to: "renamed.txt")
        _ = try api.uploadFile(named: "new.txt", text: "new\n", parentID: ids["f4"]!)
        try await waitUntilCaughtUp(mount)
        before = try lastSequence(sim)
        XCTAssertEqual(try names(mount, "f1"), ["b1.txt"], "moved away: the kept copy of its old folder is not used")
        XCTAssertEqual(try names(mount, "f2"), ["a1.txt", "a2.txt", "b2.txt"])
        XCTAssertEqual(try names(mount, "f3"), ["b3.txt", "renamed.txt"])
        XCTAssertEqual(try names(mount, "f4"), ["a4.txt", "b4.txt", "new.txt"])
        XCTAssertEqual(try names(mount, "f5"), ["a5.txt", "b5.txt"])
        let listed = Set(try sim.requestLog().after(before).filter { Self.isListing($0) }.map(\.path))
        XCTAssertFalse(listed.contains("/2.0/folders/\(ids["f5"]!)/items"), "f5 did not change: read from the disk")
        XCTAssertTrue(listed.isSubset(of: ["f1", "f2", "f3", "f4"].map { "/2.0/folders/\(ids[$0]!)/items" }), "\(listed)")
    }
}
