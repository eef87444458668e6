import BoxTestSupport
import Foundation
import XCTest

/// Following Box's event stream costs no listing: neither the mount's own changes coming back on the stream
/// nor an idle mount whose `dir_cache_ttl` runs out (docs/SEMANTICS.md "Changes made elsewhere").
final class EventCostTests: EventStreamTestCase {
    /// `cp -r` of 200 files: each upload comes back as an event that matches what the tree holds.
    func testCopyingAFolderOf200FilesListsItAtMostOnce() async throws {
        try await startBoxSim(texts: ["a.txt": "a\n"])
        try api.setLongPollTimeout(5)
        let fixture = try mountWritable()
        try await waitUntilFollowing(fixture)
        let local = try makeTemporaryDirectory().appendingPathComponent("copy")
        try FileManager.default.createDirectory(at: local, withIntermediateDirectories: true)
        for index in 0..<200 {
            try Data("file \(index)\n".utf8).write(to: local.appendingPathComponent(String(format: "f%03d.txt", index)))
        }
        let before = try lastSequence(try XCTUnwrap(boxsim))

        let started = Date()
        try succeed(["cp", "-r", local.path, fixture.path("copy")])
        let copied = Date().timeIntervalSince(started)
        let folder = try XCTUnwrap(try api.entry(at: "copy"))
        try await Poll.until("200 files on Box", timeout: 120, interval: 0.5) {
            try self.api.items(in: folder.id).count == 200 ? true : nil
        }
        try await Poll.until("nothing pending", timeout: 60) {
            (try self.statusJSON(fixture)["pending"] as? NSNumber)?.intValue == 0 ? true : nil
        }
        try await waitUntilCaughtUp(fixture)
        try await Task.sleep(nanoseconds: 1_500_000_000)
        print("EventCostTests: cp -r of 200 files took \(String(format: "%.1f", copied)) s, settled after \(String(format: "%.1f", Date().timeIntervalSince(started))) s")

        let listings = try requests().after(before).filter { Self.isListing($0, folderID: folder.id) }
        print("EventCostTests: \(listings.count) listing(s) of the copied folder")
        XCTAssertLessThanOrEqual(listings.count, 1, "own uploads listed the folder again: \(listings.map(\.seq))")
        XCTAssertEqual(try names(fixture, "copy"), try boxNames(in: "copy"))
        XCTAssertEqual(try names(fixture, "copy").count, 200)
        XCTAssertEqual(try String(contentsOfFile: fixture.path("copy/f123.txt"), encoding: .utf8), "file 123\n")
    }

    /// 2,000 files in 20 folders, all listed once; then 20 s idle with dir_cache_ttl=5: the stream keeps the
    /// listings trusted, so only event-stream requests are made.
    func testAnIdleMountFollowingEventsListsNothingPastDirCacheTTL() async throws {
        var texts: [String: String] = [:]
        for folder in 0..<20 {
            for file in 0..<100 { texts["d\(folder)/f\(file).txt"] = "\(folder) \(file)\n" }
        }
        try await startBoxSim(texts: texts)
        try api.setLongPollTimeout(5)
        let fixture = try mountWritable(options: ["dir_cache_ttl=5"])
        try await waitUntilFollowing(fixture)
        let found = try succeed(["find", fixture.mountpoint.path])
        XCTAssertEqual(found.split(separator: "\n").count, 1 + 20 + 2000)
        let before = try lastSequence(try XCTUnwrap(boxsim))

        try await Task.sleep(nanoseconds: 20_000_000_000)
        let idle = try requests().after(before)
        XCTAssertEqual(try succeed(["find", fixture.mountpoint.path]), found, "the same tree, from the cache")
        let afterFind = try requests().after(before)

        let streamRequests = idle.filter(Self.isEventStream)
        print("EventCostTests: \(idle.count) requests in 20 s idle, \(streamRequests.count) of the event stream")
        XCTAssertFalse(streamRequests.isEmpty, "the stream is followed")
        XCTAssertEqual(idle.filter { !Self.isEventStream($0) }.map { "\($0.method) \($0.path)" }, [])
        XCTAssertEqual(afterFind.filter { !Self.isEventStream($0) }.map { "\($0.method) \($0.path)" }, [],
                       "a find after the idle period lists nothing either")
    }
}
