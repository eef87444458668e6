import BoxAPI
import Foundation
import Synchronization
import SystemCalls
import XCTest

@testable import WriteBack

/// The uploader's journal work runs on its own thread, never on Swift's cooperative pool (two threads here: one
/// fsync there stalls every task of the mount). The journal notes, in debug builds, each synchronous call made
/// from a task on the pool (`callsOnThePool`).
final class UploaderThreadTests: XCTestCase {
    private var fixture: WriteBackFixture!

    override func setUp() async throws {
        fixture = try await WriteBackFixture()
    }

    override func tearDown() async throws {
        await fixture?.close()
    }

    /// A small and a chunked upload, a rename before sending, `status`, a failure and a discard: every journal call
    /// they make (the uploader's own and its attempts') is made off the pool, and the event sink runs on the
    /// uploader's thread.
    func testAnUploadsJournalWorkRunsOnTheUploadersThreadNotOnThePool() async throws {
        #if !DEBUG
        throw XCTSkip("the journal notes calls made on the pool in debug builds only")
        #else
        // Opened and recorded off the pool, as the mount opens it and the core records (`recordGrouped`): the test
        // itself breaks no rule.
        let directory = fixture.journalDirectory
        let journal = try await Syscall.offThePool { () throws in try UploadJournal(directory: directory) }
        let small = try fixture.stage(Data(repeating: 7, count: 10_000))
        let large = try fixture.stagePattern(size: 21 * 1024 * 1024, seed: 7)
        let moved = try fixture.stage(Data("moved".utf8))
        let orphan = try fixture.stage(Data("orphan".utf8))
        let entries = try await Syscall.offThePool { () throws in
            try [
                (small, UploadTarget.newFile(parentID: "0", name: "small.bin")),
                (large, .newFile(parentID: "0", name: "large.bin")),
                (moved, .newFile(parentID: "0", name: "moved.txt")),
                (orphan, .newFile(parentID: "987654321", name: "orphan.txt")),  // no such folder: a failure
            ].map { try journal.record(stagingPath: $0.0, target: $0.1, contentModifiedAt: nil) }
        }
        XCTAssertEqual(journal.callsOnThePool, [], "nothing so far")

        let uploader = fixture.uploader(journal)
        let sinkOffThread = Mutex(0)
        let executor = uploader.executor
        await uploader.setEventSink { _ in
            if !executor.isCurrent { sinkOffThread.withLock { $0 += 1 } }
        }
        try await uploader.start()
        for entry in entries {
            try await uploader.fileOpened(entry.id)
            try await uploader.fileClosed(entry.id)
        }
        try await uploader.retarget(entries[2].id, to: .newFile(parentID: "0", name: "moved-here.txt"))
        _ = await uploader.status()
        let landing = Set(entries.prefix(3).map(\.id))
        let orphanID = entries[3].id
        let events = try await collect(uploader, timeout: 120) { events in
            landing.isSubset(of: finalItems(events).keys)
                && events.contains { if case .failed(orphanID, _) = $0 { true } else { false } }
        }
        XCTAssertEqual(finalItems(events)[entries[2].id]?.name, "moved-here.txt")
        try await uploader.discard(orphanID)
        _ = await uploader.status()

        XCTAssertEqual(journal.callsOnThePool, [], "journal calls made on the cooperative pool")
        XCTAssertEqual(sinkOffThread.withLock { $0 }, 0, "events reported off the uploader's thread")
        #endif
    }
}
