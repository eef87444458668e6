import BoxTestSupport
import Foundation
import XCTest

/// Changes made elsewhere on Box (another client, the web) show in the mount within seconds, with
/// `dir_cache_ttl` left at 60 s, because the mount follows Box's event stream (docs/SEMANTICS.md
/// "Changes made elsewhere"). With `-o events=off` each of these waits for the TTL instead.
final class EventFollowTests: WriteTestCase {
    func testANewVersionElsewhereIsReadWithinSeconds() async throws {
        try await startMounted(texts: ["doc.txt": "version one\n"])
        XCTAssertEqual(try contents("doc.txt"), "version one\n")
        let held = try XCTUnwrap(FileHandle(forReadingAtPath: try XCTUnwrap(mount).path("doc.txt")))
        defer { try? held.close() }
        let file = try XCTUnwrap(try api.entry(at: "doc.txt"))

        try api.uploadVersion(of: file.id, data: Data("version two is longer\n".utf8))

        try await waitUntilVisible("the new version") { try contents("doc.txt") == "version two is longer\n" }
        XCTAssertEqual(try succeed(["stat", "-c", "%s", try XCTUnwrap(mount).path("doc.txt")]), "22\n")
    }

    func testAFileCreatedElsewhereIsListedWithinSeconds() async throws {
        try await startMounted(texts: ["a.txt": "a\n"])
        XCTAssertEqual(try names(), ["a.txt"])

        try api.uploadFile(named: "new.txt", text: "made on the web\n")

        try await waitUntilVisible("the new file") { try names() == ["a.txt", "new.txt"] }
        XCTAssertEqual(try contents("new.txt"), "made on the web\n")
    }

    func testAFileRenamedElsewhereShowsItsNewNameWithinSeconds() async throws {
        try await startMounted(texts: ["old.txt": "content\n"])
        XCTAssertEqual(try names(), ["old.txt"])
        XCTAssertEqual(try contents("old.txt"), "content\n")
        let file = try XCTUnwrap(try api.entry(at: "old.txt"))

        try api.renameFile(file.id, to: "renamed.txt")

        try await waitUntilVisible("the new name") { try names() == ["renamed.txt"] }
        XCTAssertEqual(try contents("renamed.txt"), "content\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: try XCTUnwrap(mount).path("old.txt")))
    }

    func testAFileMovedElsewhereLeavesOneFolderForTheOtherWithinSeconds() async throws {
        try await startMounted(texts: ["moving.txt": "moves\n", "sub/stay.txt": "stays\n"])
        XCTAssertEqual(try names(), ["moving.txt", "sub"])
        XCTAssertEqual(try names(in: "sub"), ["stay.txt"])
        let file = try XCTUnwrap(try api.entry(at: "moving.txt"))
        let folder = try XCTUnwrap(try api.entry(at: "sub"))

        try api.moveFile(file.id, toFolder: folder.id)

        try await waitUntilVisible("the move") { try names() == ["sub"] && names(in: "sub") == ["moving.txt", "stay.txt"] }
        XCTAssertEqual(try contents("sub/moving.txt"), "moves\n")
    }

    func testAFileDeletedElsewhereIsGoneWithinSeconds() async throws {
        try await startMounted(texts: ["keep.txt": "k\n", "gone.txt": "g\n"])
        XCTAssertEqual(try names(), ["gone.txt", "keep.txt"])
        XCTAssertEqual(try contents("gone.txt"), "g\n")
        let file = try XCTUnwrap(try api.entry(at: "gone.txt"))

        try api.deleteFile(file.id)

        try await waitUntilVisible("the delete") {
            try names() == ["keep.txt"] && !FileManager.default.fileExists(atPath: try XCTUnwrap(mount).path("gone.txt"))
        }
        XCTAssertNotEqual(try Shell.run(["stat", try XCTUnwrap(mount).path("gone.txt")]).status, 0)
    }

    /// The stream position is kept in the cache folder: a remount resumes from it (no `stream_position=now`)
    /// and applies what happened while nothing was mounted.
    func testAChangeWhileUnmountedIsCaughtUpByTheNextMount() async throws {
        try await startMounted(texts: ["doc.txt": "before\n"])
        XCTAssertEqual(try contents("doc.txt"), "before\n")
        let sim = try XCTUnwrap(boxsim)
        try await Poll.until("a saved stream position", timeout: 10) { try savedPosition() }
        try XCTUnwrap(mount).unmount()
        let file = try XCTUnwrap(try api.entry(at: "doc.txt"))
        try api.uploadVersion(of: file.id, data: Data("changed while unmounted\n".utf8))
        try api.uploadFile(named: "added.txt", text: "added\n")
        let saved = try XCTUnwrap(try savedPosition())
        let before = try lastSequence(sim)

        try mountWritable()

        try await waitUntilVisible("the changes made while unmounted") {
            try contents("doc.txt") == "changed while unmounted\n" && names() == ["added.txt", "doc.txt"]
        }
        let eventCalls = try sim.requestLog().after(before).filter { $0.path == "/2.0/events" && $0.method == "GET" }
        XCTAssertTrue(eventCalls.contains { $0.query?.contains("stream_position=\(saved)") == true },
                      "the remount resumes at the saved position \(saved): \(eventCalls.map { $0.query ?? "" })")
        XCTAssertFalse(eventCalls.contains { $0.query?.contains("stream_position=now") == true })
    }

    /// The mount's own upload, rename and delete come back on the stream; they are what the tree already
    /// holds, so they cost no listing.
    func testOwnChangesCostNoListing() async throws {
        try await startMounted(texts: ["a.txt": "a\n"])
        XCTAssertEqual(try names(), ["a.txt"])
        let sim = try XCTUnwrap(boxsim)
        let before = try lastSequence(sim)
        try succeed(["sh", "-c", "echo mine > '\(try XCTUnwrap(mount).path("mine.txt"))'"])
        try await Poll.until("the upload", timeout: 20) { try api.entry(at: "mine.txt") }
        try succeed(["mv", try XCTUnwrap(mount).path("a.txt"), try XCTUnwrap(mount).path("b.txt")])
        try succeed(["rm", try XCTUnwrap(mount).path("b.txt")])
        let latest = try XCTUnwrap((try api.call("GET", "/2.0/events?stream_position=now")["next_stream_position"] as? NSNumber)?.stringValue)
        try await Poll.until("the mount to apply position \(latest)", timeout: 10) {
            try followedPosition() == latest ? true : nil
        }
        try await Task.sleep(nanoseconds: 1_500_000_000)
        XCTAssertEqual(try names(), ["mine.txt"])
        // The mount's listings page by marker; the test's own look-ups (BoxSimAPI) by offset.
        let listings = try sim.requestLog().after(before).filter {
            $0.path == "/2.0/folders/0/items" && $0.query?.contains("usemarker") == true
        }
        XCTAssertEqual(listings.count, 0, "own changes listed the folder again: \(listings.map(\.seq))")
    }

    /// Box answers a position older than it keeps events from the oldest it still has, with nothing to say that
    /// events were missed (docs/BOXSIM.md, `expire`): a saved position older than Box's 21 days is not resumed
    /// from; the mount starts at `now`, and what it lists is what Box holds.
    func testASavedPositionOlderThanBoxKeepsEventsIsNotResumedFrom() async throws {
        try await startMounted(texts: ["doc.txt": "before\n"])
        XCTAssertEqual(try contents("doc.txt"), "before\n")
        let sim = try XCTUnwrap(boxsim)
        try await Poll.until("a saved stream position", timeout: 10) { try savedPosition() }
        try XCTUnwrap(mount).unmount()
        try api.uploadFile(named: "added.txt", text: "added\n")
        try api.expireEvents()
        let positionFile = try XCTUnwrap(try positionFileURL())
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -30 * 86_400)],
                                              ofItemAtPath: positionFile.path)
        let saved = try XCTUnwrap(try savedPosition())
        let before = try lastSequence(sim)

        try mountWritable()

        try await waitUntilVisible("the folder as Box holds it") { try names() == ["added.txt", "doc.txt"] }
        try await Poll.until("the stream started at now", timeout: 10) {
            try sim.requestLog().after(before).contains {
                $0.path == "/2.0/events" && $0.query?.contains("stream_position=now") == true
            } ? true : nil
        }
        let eventCalls = try sim.requestLog().after(before).filter { $0.path == "/2.0/events" && $0.method == "GET" }
        XCTAssertFalse(eventCalls.contains { $0.query?.contains("stream_position=\(saved)&") == true
                || $0.query?.hasSuffix("stream_position=\(saved)") == true },
                       "the old position \(saved) is not resumed from: \(eventCalls.map { $0.query ?? "" })")
    }

    /// Box may send an event more than once, or after later ones (boxsim's `duplicate_rate`, `out_of_order_rate`):
    /// the mount ends up showing what Box holds, names and bytes, after a run of changes made elsewhere.
    func testEventsSentTwiceOrOutOfOrderLeaveTheMountShowingWhatBoxHolds() async throws {
        try await startMounted(texts: ["a.txt": "a\n", "b.txt": "b\n"])
        XCTAssertEqual(try names(), ["a.txt", "b.txt"])
        XCTAssertEqual(try contents("b.txt"), "b\n")
        try api.setEventStreamFaults(duplicateRate: 1, outOfOrderRate: 0.5)
        let a = try XCTUnwrap(try api.entry(at: "a.txt")), b = try XCTUnwrap(try api.entry(at: "b.txt"))
        try api.renameFile(a.id, to: "c.txt")
        _ = try api.uploadVersion(of: b.id, data: Data("b two\n".utf8))
        try api.uploadFile(named: "d.txt", text: "d\n")
        try api.renameFile(a.id, to: "e.txt")
        _ = try api.uploadVersion(of: b.id, data: Data("b three\n".utf8))
        // An event held back comes with a later page: one more fetch, up to 2 s apart (pacing gathers wake-ups).
        try await waitUntilVisible("every change", within: 2 * Self.visibleWithin) {
            try names() == ["b.txt", "d.txt", "e.txt"] && contents("b.txt") == "b three\n"
        }
        try await Task.sleep(nanoseconds: 3_000_000_000)  // the duplicates and the late events have come since
        XCTAssertEqual(try names(), ["b.txt", "d.txt", "e.txt"])
        XCTAssertEqual(try contents("b.txt"), "b three\n")
        XCTAssertEqual(try contents("e.txt"), "a\n")
    }

    func testStatusShowsTheEventStream() async throws {
        try await startMounted(texts: ["a.txt": "a\n"])
        let path = try XCTUnwrap(mount).mountpoint.path
        let binary = try MountFixture.locateBinary().path
        try await Poll.until("following", timeout: 10) {
            try Shell.run([binary, "status", path]).stdout.contains("following Box's events") ? true : nil
        }
        let json = try Shell.run([binary, "status", path, "--json"]).stdout
        XCTAssertTrue(json.contains("\"events\" : \"following\""), json)
    }

    /// The stream position the mount applied last, from `boxfs status --json`.
    private func followedPosition() throws -> String? {
        let output = try Shell.run([try MountFixture.locateBinary().path, "status", try XCTUnwrap(mount).mountpoint.path, "--json"])
        let json = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any]
        return json?["events_position"] as? String
    }

    private func positionFileURL() throws -> URL? {
        let cache = try XCTUnwrap(cacheDirectory)
        let files = FileManager.default.enumerator(atPath: cache.path)?.compactMap { $0 as? String } ?? []
        return files.first(where: { $0.hasSuffix(".position") }).map { cache.appendingPathComponent($0) }
    }

    private func savedPosition() throws -> String? {
        let cache = try XCTUnwrap(cacheDirectory)
        let files = FileManager.default.enumerator(atPath: cache.path)?.compactMap { $0 as? String } ?? []
        guard let file = files.first(where: { $0.hasSuffix(".position") }) else { return nil }
        return try? String(contentsOfFile: cache.appendingPathComponent(file).path, encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
