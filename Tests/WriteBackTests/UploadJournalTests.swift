import BoxAPI
import Foundation
import XCTest

@testable import WriteBack

/// The journal keeps entries, sessions and parts across instances (a new process after a crash).
final class UploadJournalTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString)")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
    }

    private let session = UploadSession(
        id: "S1", partSize: 8, totalParts: 3, expiresAt: Date(timeIntervalSince1970: 2_000_000_000),
        uploadPartURL: "http://h/api/2.0/files/upload_sessions/S1", commitURL: "http://h/c",
        abortURL: "http://h/a", listPartsURL: "http://h/p", statusURL: "http://h/s")

    func testEntriesSurviveIntoAnotherJournalInstance() throws {
        let mtime = Date(timeIntervalSince1970: 1_700_000_000.5)
        let first = try UploadJournal(directory: directory)
        let a = try first.record(stagingPath: "/cache/a", target: .newFile(parentID: "0", name: "a.txt"),
                                 contentModifiedAt: mtime)
        let b = try first.record(
            stagingPath: "/cache/b",
            target: .newVersion(fileID: "9", parentID: "0", name: "b.txt", baseETag: "4", baseSHA1: "ff"),
            contentModifiedAt: nil)
        XCTAssertEqual(try first.bumpGeneration(id: b.id), 2)
        try first.saveSession(id: b.id, session, generation: 2, fileSize: 20)
        try first.addPart(id: b.id, sessionID: "S1", UploadPart(partID: "P0", offset: 0, size: 8, sha1: "01"))
        try first.addPart(id: b.id, sessionID: "OTHER", UploadPart(partID: "PX", offset: 8, size: 8, sha1: nil))
        try first.noteFailure(id: a.id, "temporary failure: reset")

        // A second instance (as after kill -9 and restart) sees everything committed by the first.
        let second = try UploadJournal(directory: directory)
        let pending = try second.pending()
        XCTAssertEqual(pending.map(\.id), [a.id, b.id])
        XCTAssertEqual(pending[0].target, .newFile(parentID: "0", name: "a.txt"))
        XCTAssertEqual(pending[0].contentModifiedAt, mtime)
        XCTAssertEqual(pending[0].attempts, 1)
        XCTAssertEqual(pending[0].lastError, "temporary failure: reset")
        XCTAssertEqual(pending[1].generation, 2)
        XCTAssertEqual(pending[1].session, session)
        XCTAssertEqual(pending[1].sessionGeneration, 2)
        XCTAssertEqual(pending[1].sessionFileSize, 20)
        XCTAssertEqual(pending[1].parts, [UploadPart(partID: "P0", offset: 0, size: 8, sha1: "01")],
                       "a part of another session is not recorded")
        XCTAssertEqual(try second.entry(stagingPath: "/cache/b")?.id, b.id)
    }

    func testTargetsSessionsAndRemoval() throws {
        let journal = try UploadJournal(directory: directory)
        let entry = try journal.record(stagingPath: "/x", target: .newFile(parentID: "0", name: "x"), contentModifiedAt: nil)
        let version = UploadTarget.newVersion(fileID: "5", parentID: "1", name: "y", baseETag: nil, baseSHA1: nil)
        try journal.setTarget(id: entry.id, version)
        try journal.saveSession(id: entry.id, session, generation: 1, fileSize: 20)
        try journal.addPart(id: entry.id, sessionID: "S1", UploadPart(partID: "P", offset: 8, size: 8, sha1: nil))
        XCTAssertEqual(try journal.entry(id: entry.id)?.target, version)
        try journal.clearSession(id: entry.id)
        let cleared = try XCTUnwrap(journal.entry(id: entry.id))
        XCTAssertNil(cleared.session)
        XCTAssertEqual(cleared.parts, [])
        try journal.remove(id: entry.id)
        XCTAssertNil(try journal.entry(id: entry.id))
        XCTAssertEqual(try journal.pending(), [])
    }

    func testJournalIsInWALModeWithFullSync() throws {
        let journal = try UploadJournal(directory: directory)
        let (mode, sync) = try journal.database.read { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA synchronous"))
        }
        XCTAssertEqual(mode, "wal")
        XCTAssertEqual(sync, 2, "FULL")
    }
}
