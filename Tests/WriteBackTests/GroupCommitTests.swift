import BoxAPI
import Foundation
import XCTest

@testable import WriteBack

/// Records made at the same time share a commit, each is durable when its call returns, and one that
/// fails leaves the others of its group in.
final class GroupCommitTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("group-\(UUID().uuidString)")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
    }

    func testConcurrentRecordsShareCommitsAndAreAllDurableWhenTheyReturn() async throws {
        let journal = try UploadJournal(directory: directory)
        let before = journal.commits.commits
        let count = 200
        let entries = try await withThrowingTaskGroup(of: UploadEntry.self) { group in
            for index in 0..<count {
                group.addTask {
                    try await journal.recordGrouped(
                        stagingPath: "/cache/\(index)", target: .newFile(parentID: "0", name: "f\(index)"),
                        contentModifiedAt: nil)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(Set(entries.map(\.id)).count, count, "one entry each")
        let commits = journal.commits.commits - before
        XCTAssertLessThan(commits, count, "records made at once share commits")
        XCTAssertGreaterThan(commits, 0)
        // Another instance (as after a kill) reads every one of them.
        let reopened = try UploadJournal(directory: directory)
        XCTAssertEqual(Set(try reopened.pending().map(\.stagingPath)), Set((0..<count).map { "/cache/\($0)" }))
    }

    func testAFailingWriteLeavesTheOthersOfItsGroupIn() async throws {
        let journal = try UploadJournal(directory: directory)
        async let good = journal.recordGrouped(
            stagingPath: "/cache/good", target: .newFile(parentID: "0", name: "good"), contentModifiedAt: nil)
        async let bad: Void = journal.commits.write { db in
            try db.execute(sql: "INSERT INTO no_such_table VALUES (1)")
        }
        async let alsoGood = journal.recordGrouped(
            stagingPath: "/cache/also", target: .newFile(parentID: "0", name: "also"), contentModifiedAt: nil)
        _ = try await (good, alsoGood)
        do {
            try await bad
            XCTFail("a write into a missing table fails")
        } catch let error as WriteBackError {
            XCTAssertTrue(error.description.contains("no_such_table"), error.description)
        }
        XCTAssertEqual(Set(try UploadJournal(directory: directory).pending().map(\.stagingPath)), ["/cache/good", "/cache/also"])
    }

    func testSynchronousWritesStillWork() throws {
        let journal = try UploadJournal(directory: directory)
        let entry = try journal.record(stagingPath: "/x", target: .newFile(parentID: "0", name: "x"), contentModifiedAt: nil)
        XCTAssertEqual(try journal.bumpGeneration(id: entry.id), 2)
        try journal.remove(id: entry.id)
        XCTAssertTrue(try journal.pending().isEmpty)
    }
}
