import BoxAPI
import BoxTestSupport
import Foundation
import XCTest

@testable import WriteBack

/// Conflicts, injected faults and a full account against a real boxsim.
final class UploaderRecoveryTests: XCTestCase {
    private var fixture: WriteBackFixture!

    override func setUp() async throws {
        fixture = try await WriteBackFixture()
    }

    override func tearDown() async throws {
        await fixture?.close()
    }

    func testChangeOnBoxYieldsAConflictedCopyAndBothVersionsSurvive() async throws {
        let client = fixture.client
        let original = try await client.uploadFile(
            path: try fixture.stage(Data("base\n".utf8)), name: "plan.txt", parentID: "0")
        // Someone edits the file on Box after our local copy was taken.
        let remoteEdit = Data("edited on the web\n".utf8)
        _ = try await client.uploadVersion(fileID: original.id, path: try fixture.stage(remoteEdit), ifMatch: nil)

        let local = Data("edited locally\n".utf8)
        let journal = try fixture.journal()
        let entry = try journal.record(
            stagingPath: try fixture.stage(local),
            target: .newVersion(fileID: original.id, parentID: "0", name: "plan.txt", baseETag: original.etag,
                                baseSHA1: original.sha1),
            contentModifiedAt: nil)
        let uploader = fixture.uploader(journal)
        try await uploader.fileOpened(entry.id)
        try await uploader.fileClosed(entry.id)
        let events = try await collect(uploader) { finalItems($0).count == 1 }

        let copy = try XCTUnwrap(finalItems(events)[entry.id])
        XCTAssertNotEqual(copy.id, original.id)
        XCTAssertTrue(copy.name.hasPrefix("plan (conflict "), copy.name)
        XCTAssertTrue(copy.name.hasSuffix(").txt"), copy.name)
        XCTAssertTrue(events.contains { if case .conflict(entry.id, _, copy.name) = $0 { true } else { false } })
        let copySHA1 = try await fixture.remoteSHA1(copy.id)
        let originalSHA1 = try await fixture.remoteSHA1(original.id)
        XCTAssertEqual(copySHA1, FileDigest.sha1(local).hex, "the local content is in the copy")
        XCTAssertEqual(originalSHA1, FileDigest.sha1(remoteEdit).hex, "the web edit was not overwritten")
        let names = try await client.folderItems(id: "0").map(\.name).sorted()
        XCTAssertEqual(names, [copy.name, "plan.txt"].sorted())
    }

    func testInjectedFaultsAreRetriedWithoutLossOrDuplicates() async throws {
        // boxsim applies every matching rule to a request, and a rule's count runs down even when another
        // rule's error answers it: so a cut meant for the third request is given a count of 3.
        // Direct uploads: two 503s, then one answer cut after Box stored the file (the retry meets 409).
        try await fixture.inject(["path_prefix": "/api/2.0/files/content", "error_status": 503, "count": 2])
        try await fixture.inject(["path_prefix": "/api/2.0/files/content", "cut_after_bytes": 10, "count": 3])
        // Sessions: a 429 burst on parts, then a cut part answer, and a 502 on the commit.
        try await fixture.inject(["path_prefix": "/api/2.0/files/upload_sessions/", "method": "PUT", "burst_429": 2,
                                  "retry_after": 1])
        try await fixture.inject(["path_prefix": "/api/2.0/files/upload_sessions/", "method": "PUT",
                                  "cut_after_bytes": 5, "count": 3])
        // The first commit gets a 502, the second is stored but its answer cut (the retry must notice).
        try await fixture.inject(["path_prefix": "/api/2.0/files/upload_sessions/", "method": "POST",
                                  "cut_after_bytes": 10, "count": 2])
        try await fixture.inject(["path_prefix": "/api/2.0/files/upload_sessions/", "method": "POST",
                                  "error_status": 502, "count": 1])

        let journal = try fixture.journal()
        var expected: [Int64: (name: String, sha1: String)] = [:]
        for index in 0..<4 {
            let data = Data("file number \(index)\n".utf8) + Data(repeating: UInt8(index), count: 10_000 * index)
            let entry = try journal.record(stagingPath: try fixture.stage(data),
                                           target: .newFile(parentID: "0", name: "small-\(index).txt"),
                                           contentModifiedAt: nil)
            expected[entry.id] = ("small-\(index).txt", FileDigest.sha1(data).hex)
        }
        let bigPath = try fixture.stagePattern(size: 25 * 1024 * 1024, seed: 3)
        let big = try journal.record(stagingPath: bigPath, target: .newFile(parentID: "0", name: "big.bin"),
                                     contentModifiedAt: nil)
        expected[big.id] = ("big.bin", try FileDigest.sha1(path: bigPath).hex)

        let uploader = fixture.uploader(journal)
        try await uploader.start()
        let count = expected.count
        let events = try await collect(uploader, timeout: 180) { finalItems($0).count == count }
        let items = finalItems(events)
        for (id, want) in expected {
            let item = try XCTUnwrap(items[id], want.name)
            XCTAssertEqual(item.name, want.name)
            let remote = try await fixture.remoteSHA1(item.id)
            XCTAssertEqual(remote, want.sha1, want.name)
        }
        let listing = try await fixture.client.folderItems(id: "0")
        XCTAssertEqual(listing.map(\.name).sorted(), expected.values.map(\.name).sorted(), "nothing duplicated")
        XCTAssertTrue(events.contains { if case .failed = $0 { true } else { false } }, "faults were actually met")
        let direct = try await fixture.logged("/api/2.0/files/content", method: "POST").map(\.status)
        XCTAssertEqual(direct.filter { $0 == 503 }.count, 2)
        XCTAssertEqual(direct.filter { $0 == 409 }.count, 1, "the retry after the cut answer met its own upload: \(direct)")
        let commits = try await fixture.logged("/api/2.0/files/upload_sessions/", method: "POST").map(\.status)
        XCTAssertEqual(commits.prefix(2), [502, 201], "\(commits)")
        let partStatuses = try await fixture.logged("/api/2.0/files/upload_sessions/", method: "PUT").map(\.status)
        XCTAssertEqual(partStatuses.filter { $0 == 429 }.count, 2, "\(partStatuses)")
    }

    func testFullAccountIsAStorageErrorNotARetryLoop() async throws {
        let me = try await fixture.client.currentUser()
        try await fixture.control(.put, "/_control/users/\(me.id)", ["space_amount": me.spaceUsed + 1000], expect: 200)
        let journal = try fixture.journal()
        let entry = try journal.record(stagingPath: try fixture.stage(Data(repeating: 1, count: 50_000)),
                                       target: .newFile(parentID: "0", name: "too-big-for-quota.bin"),
                                       contentModifiedAt: nil)
        let uploader = fixture.uploader(journal)
        try await uploader.start()
        let events = try await collect(uploader) { $0.contains { if case .failed = $0 { true } else { false } } }
        XCTAssertTrue(events.contains(.failed(entryID: entry.id, failure: .storageFull)), "\(events)")
        try await Task.sleep(for: .seconds(2))
        let attempts = try await fixture.logged("/api/2.0/files/content", method: "POST")
        XCTAssertEqual(attempts.map(\.status), [403], "not retried in a loop")
        let status = await uploader.status()
        XCTAssertEqual(status.entries.map(\.state), ["parked"])
        XCTAssertEqual(status.recentErrors.last?.failure, .storageFull)
        XCTAssertEqual(try journal.pending().map(\.id), [entry.id], "the data stays journaled")
        XCTAssertEqual(try journal.pending().first?.lastError, UploadFailure.storageFull.summary)

        let started = ContinuousClock.now
        let left = await uploader.drain(timeout: .seconds(30))
        XCTAssertEqual(left, 1, "still full: the entry stays")
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(10), "unmount does not wait out a parked entry")
        let afterDrain = try await fixture.logged("/api/2.0/files/content", method: "POST")
        XCTAssertEqual(afterDrain.map(\.status), [403, 403], "one more try at unmount, no loop")
    }
}
