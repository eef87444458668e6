import BoxAPI
import BoxTestSupport
import Foundation
import XCTest

@testable import WriteBack

/// New versions of existing files, a file deleted on Box meanwhile, status and drain, against boxsim.
final class UploaderVersionTests: XCTestCase {
    private var fixture: WriteBackFixture!

    override func setUp() async throws {
        fixture = try await WriteBackFixture()
    }

    override func tearDown() async throws {
        await fixture?.close()
    }

    /// Uploads `data` directly and returns the Box file.
    private func existing(_ name: String, _ data: Data) async throws -> BoxItem {
        try await fixture.client.uploadFile(path: try fixture.stage(data), name: name, parentID: "0")
    }

    private func versionTarget(_ item: BoxItem) -> UploadTarget {
        .newVersion(fileID: item.id, parentID: "0", name: item.name, baseETag: item.etag, baseSHA1: item.sha1)
    }

    func testNewVersionsKeepTheFileIDSimpleAndChunked() async throws {
        let small = try await existing("doc.txt", Data("old\n".utf8))
        let large = try await existing("disk.img", Data("old image\n".utf8))
        let journal = try fixture.journal()
        let smallContent = Data("new text\n".utf8)
        let largePath = try fixture.stagePattern(size: 22 * 1024 * 1024, seed: 11)
        let a = try journal.record(stagingPath: try fixture.stage(smallContent), target: versionTarget(small),
                                   contentModifiedAt: nil)
        let b = try journal.record(stagingPath: largePath, target: versionTarget(large), contentModifiedAt: nil)
        let uploader = fixture.uploader(journal)
        try await uploader.start()
        let items = finalItems(try await collect(uploader, timeout: 120) { finalItems($0).count == 2 })

        XCTAssertEqual(items[a.id]?.id, small.id, "same file, new version")
        XCTAssertEqual(items[b.id]?.id, large.id)
        XCTAssertNotEqual(items[a.id]?.fileVersionID, small.fileVersionID)
        let smallRemote = try await fixture.remoteSHA1(small.id)
        let largeRemote = try await fixture.remoteSHA1(large.id)
        XCTAssertEqual(smallRemote, FileDigest.sha1(smallContent).hex)
        XCTAssertEqual(largeRemote, try FileDigest.sha1(path: largePath).hex)
        let sessions = try await fixture.logged("/api/2.0/files/\(large.id)/upload_sessions", method: "POST")
        XCTAssertEqual(sessions.map(\.status), [201], "the large version went through a version session")
        let listing = try await fixture.client.folderItems(id: "0")
        XCTAssertEqual(listing.map(\.name).sorted(), ["disk.img", "doc.txt"], "no copies, no new files")
    }

    func testFileDeletedOnBoxComesBackAsANewFile() async throws {
        let original = try await existing("gone.txt", Data("v1\n".utf8))
        try await fixture.client.deleteFile(id: original.id)
        let journal = try fixture.journal()
        let local = Data("kept locally\n".utf8)
        let entry = try journal.record(stagingPath: try fixture.stage(local), target: versionTarget(original),
                                       contentModifiedAt: nil)
        let uploader = fixture.uploader(journal)
        try await uploader.start()
        let events = try await collect(uploader) { finalItems($0).count == 1 }
        let item = try XCTUnwrap(finalItems(events)[entry.id])
        XCTAssertNotEqual(item.id, original.id)
        XCTAssertEqual(item.name, "gone.txt")
        let remote = try await fixture.remoteSHA1(item.id)
        XCTAssertEqual(remote, FileDigest.sha1(local).hex)
        XCTAssertTrue(events.contains(.failed(entryID: entry.id, failure: .targetGone)))
        XCTAssertTrue(events.contains { if case .recreated(entry.id, _) = $0 { true } else { false } },
                      "the core is told the content is a new file now: \(events)")
    }

    func testStatusShowsProgressAndDrainWaitsOrLeavesWorkJournaled() async throws {
        try await fixture.inject([
            "path_prefix": "/api/2.0/files/upload_sessions/", "method": "PUT", "latency_ms": 400,
        ])
        let journal = try fixture.journal()
        var configuration = UploaderConfiguration.forTests
        configuration.writeBackDelay = 3600  // only drain makes these go
        configuration.partsInFlight = 1
        let uploader = fixture.uploader(journal, configuration)
        let quick = try journal.record(stagingPath: try fixture.stage(Data("quick".utf8)),
                                       target: .newFile(parentID: "0", name: "quick.txt"), contentModifiedAt: nil)
        let slow = try journal.record(stagingPath: try fixture.stagePattern(size: 48 * 1024 * 1024, seed: 5),
                                      target: .newFile(parentID: "0", name: "slow.bin"), contentModifiedAt: nil)
        for entry in [quick, slow] {
            try await uploader.fileOpened(entry.id)
            try await uploader.fileClosed(entry.id)
        }
        let waiting = await uploader.status()
        XCTAssertEqual(waiting.entries.map(\.state), ["waiting", "waiting"])

        let left = await uploader.drain(timeout: .seconds(1.5))
        XCTAssertEqual(left, 1, "the small file made it, the slow one did not")
        let running = await uploader.status()
        let entry = try XCTUnwrap(running.entries.first)
        XCTAssertEqual(entry.id, slow.id)
        XCTAssertEqual(entry.state, "uploading")
        XCTAssertEqual(entry.bytesTotal, 48 * 1024 * 1024)
        XCTAssertGreaterThan(entry.bytesSent, 0, "parts already acknowledged count as progress")
        XCTAssertLessThan(entry.bytesSent, entry.bytesTotal)
        XCTAssertEqual(try journal.pending().map(\.id), [slow.id], "what did not finish stays journaled")

        let finished = await uploader.drain(timeout: .seconds(60))
        XCTAssertEqual(finished, 0)
        XCTAssertEqual(try journal.pending(), [])
    }
}
