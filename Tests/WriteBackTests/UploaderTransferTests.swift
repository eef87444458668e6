import BoxAPI
import BoxTestSupport
import Foundation
import XCTest

@testable import WriteBack

/// Uploads against a real boxsim: content arrives byte-exact, large files go through sessions,
/// rewrites coalesce, and a new uploader on the same journal resumes a session without resending parts.
final class UploaderTransferTests: XCTestCase {
    private var fixture: WriteBackFixture!

    override func setUp() async throws {
        fixture = try await WriteBackFixture()
    }

    override func tearDown() async throws {
        await fixture?.close()
    }

    func testSmallAndHundredMebibyteFilesArriveByteExact() async throws {
        let journal = try fixture.journal()
        let small = try fixture.stage(Data((0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }))
        let large = try fixture.stagePattern(size: 100 * 1024 * 1024, seed: 42)
        let mtime = Date(timeIntervalSince1970: 1_600_000_000)
        let a = try journal.record(stagingPath: small, target: .newFile(parentID: "0", name: "small.bin"),
                                   contentModifiedAt: mtime)
        let b = try journal.record(stagingPath: large, target: .newFile(parentID: "0", name: "large.bin"),
                                   contentModifiedAt: nil)
        let uploader = fixture.uploader(journal)
        for entry in [a, b] {
            try await uploader.fileOpened(entry.id)
            try await uploader.fileClosed(entry.id)
        }
        let events = try await collect(uploader, timeout: 240) { finalItems($0).count == 2 }
        let items = finalItems(events)
        for (entry, path) in [(a, small), (b, large)] {
            let item = try XCTUnwrap(items[entry.id])
            let local = try FileDigest.sha1(path: path).hex
            XCTAssertEqual(item.sha1, local)
            let remote = try await fixture.remoteSHA1(item.id)
            XCTAssertEqual(remote, local, "what Box serves is what was staged")
        }
        XCTAssertEqual(items[a.id]?.contentModifiedAt, mtime)
        XCTAssertEqual(try journal.pending(), [], "finished entries leave the journal")

        let simple = try await fixture.logged("/api/2.0/files/content", method: "POST")
        XCTAssertEqual(simple.map(\.status), [201], "the small file went up in one request")
        let sessions = try await fixture.logged("/api/2.0/files/upload_sessions", method: "POST")
            .filter { !$0.path.hasSuffix("/commit") }
        XCTAssertEqual(sessions.map(\.status), [201], "the large one through one session")
        let parts = try await fixture.logged("/api/2.0/files/upload_sessions/", method: "PUT").filter { $0.status == 200 }
        XCTAssertEqual(parts.count, 13, "100 MiB in 8 MiB parts, each sent once")
    }

    func testRewritesDuringTheDelayBecomeOneUpload() async throws {
        let journal = try fixture.journal()
        let path = try fixture.stage(Data("v1".utf8))
        let entry = try journal.record(stagingPath: path, target: .newFile(parentID: "0", name: "burst.txt"),
                                       contentModifiedAt: nil)
        var configuration = UploaderConfiguration.forTests
        configuration.writeBackDelay = 0.5
        let uploader = fixture.uploader(journal, configuration)
        try await uploader.fileOpened(entry.id)
        for round in 2...6 {
            try await uploader.fileClosed(entry.id)
            try await Task.sleep(for: .milliseconds(100))
            try await uploader.fileOpened(entry.id)
            try Data("v\(round)".utf8).write(to: URL(fileURLWithPath: path))
        }
        try await uploader.fileClosed(entry.id)
        let events = try await collect(uploader) { finalItems($0).count == 1 }
        let item = try XCTUnwrap(finalItems(events)[entry.id])
        XCTAssertEqual(item.sha1, FileDigest.sha1(Data("v6".utf8)).hex)
        let uploads = try await fixture.logged("/api/2.0/files", method: "POST")
        XCTAssertEqual(uploads.map(\.status), [201], "one upload for the burst")
    }

    /// The kernel's RELEASE comes after close(2) returned, so one writer's close can reach the uploader after
    /// the next writer's open: that close must not start an upload under the writer that still holds the file
    /// (whose bytes would then be missing from an upload taken as the last).
    func testACloseThatArrivesAfterTheNextOpenIsVoidWhileTheFileIsHeld() async throws {
        let journal = try fixture.journal()
        let path = try fixture.stage(Data("first".utf8))
        let entry = try journal.record(stagingPath: path, target: .newFile(parentID: "0", name: "held.txt"),
                                       contentModifiedAt: nil)
        var configuration = UploaderConfiguration.forTests
        configuration.writeBackDelay = 0
        let uploader = fixture.uploader(journal, configuration)
        try await uploader.fileOpened(entry.id)   // writer 1
        try await uploader.fileOpened(entry.id)   // writer 2, before writer 1's close arrives
        try await uploader.fileClosed(entry.id, reopened: { true })  // writer 1's late close
        try await Task.sleep(for: .milliseconds(500))
        let early = try await fixture.logged("/api/2.0/files", method: "POST")
        XCTAssertEqual(early.count, 0, "nothing is sent while writer 2 holds the file")
        try Data("first and second".utf8).write(to: URL(fileURLWithPath: path))
        try await uploader.fileClosed(entry.id)   // writer 2's close
        let events = try await collect(uploader) { finalItems($0).count == 1 }
        XCTAssertEqual(try XCTUnwrap(finalItems(events)[entry.id]).sha1, FileDigest.sha1(Data("first and second".utf8)).hex)
    }

    func testNewUploaderOnTheSameJournalResumesTheSessionWithoutResendingParts() async throws {
        let size = 40 * 1024 * 1024  // 5 parts of 8 MiB
        let path = try fixture.stagePattern(size: size, seed: 7)
        try await fixture.inject([
            "path_prefix": "/api/2.0/files/upload_sessions/", "method": "PUT", "latency_ms": 700,
        ])
        let first = try fixture.journal()
        let entry = try first.record(stagingPath: path, target: .newFile(parentID: "0", name: "resumed.bin"),
                                     contentModifiedAt: nil)
        var slow = UploaderConfiguration.forTests
        slow.partsInFlight = 1
        let crashed = fixture.uploader(first, slow)
        try await crashed.fileOpened(entry.id)
        try await crashed.fileClosed(entry.id)
        let deadline = ContinuousClock.now + .seconds(60)
        while try (first.entry(id: entry.id)?.parts.count ?? 0) < 2, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        await crashed.shutdown()  // as if killed: nothing is written on the way out
        try await Task.sleep(for: .seconds(1.5))  // let a part already on the wire land (or not) first
        let before = try XCTUnwrap(first.entry(id: entry.id))
        XCTAssertGreaterThanOrEqual(before.parts.count, 2)
        let sessionID = try XCTUnwrap(before.session?.id)

        let second = try fixture.journal()
        let resumed = fixture.uploader(second)
        let found = try await resumed.start()
        XCTAssertEqual(found, 1)
        let events = try await collect(resumed, timeout: 120) { finalItems($0).count == 1 }
        let item = try XCTUnwrap(finalItems(events)[entry.id])
        let remote = try await fixture.remoteSHA1(item.id)
        XCTAssertEqual(remote, try FileDigest.sha1(path: path).hex)

        let creates = try await fixture.logged("/api/2.0/files/upload_sessions", method: "POST")
            .filter { !$0.path.hasSuffix("/commit") }
        XCTAssertEqual(creates.count, 1, "the journaled session was resumed, not replaced")
        let stored = try await fixture.logged("/api/2.0/files/upload_sessions/\(sessionID)", method: "PUT")
            .filter { $0.status == 200 }
        XCTAssertEqual(stored.count, 5, "every part stored exactly once across both uploaders")
        let listed = try await fixture.logged("/api/2.0/files/upload_sessions/\(sessionID)/parts", method: "GET")
        XCTAssertFalse(listed.isEmpty, "the resumed uploader asked Box which parts it has")
    }
}
