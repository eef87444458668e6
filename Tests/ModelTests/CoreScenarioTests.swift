import FakeBox
import Foundation
import Synchronization
import XCTest

/// Plain tests of the filesystem core in-process: one sequence each, driven through `CoreExecutor` against a fake
/// Box, for the divergences the core's model found that a sequence shows on demand (uploads held back with
/// `write_back_delay`, so no timing decides the outcome).
final class CoreScenarioTests: XCTestCase {
    /// Runs `body` on a new core with one thread folder (faults off), then ends the core; answers what `body` saw.
    func scenario(_ body: @escaping @Sendable (CoreModelRun, CoreExecutor) async throws -> [Outcome]) throws -> [Outcome] {
        try blocking {
            let run = CoreModelRun(steps: [], threads: 1, faults: .off, concurrent: false, seed: 1)
            let thread = try await run.start()[0]
            do {
                let outcomes = try await body(run, thread)
                await run.stop()
                if let calls = run.journalCallsOnThePool() { XCTFail(calls.description) }
                return outcomes
            } catch {
                await run.stop()
                throw error
            }
        }
    }

    /// Seed 566940517: a descriptor open for reading on a file only on Box read the bytes of another file renamed
    /// over it (0 bytes past that file's end), while the renamed content waited to go up as the replaced Box
    /// file's next version. The open inode is the replaced file's, so it reads what that file held.
    func testAReaderOfAFileReplacedByARenameReadsTheReplacedFile() throws {
        let outcomes = try scenario { run, thread in
            var outcomes: [Outcome] = []
            outcomes.append(await thread.run(.writeFile("f0", Fill(length: 2670, seed: 1))))
            outcomes.append(await thread.run(.writeFile("f1", Fill(length: 3778, seed: 2))))
            await run.settled()
            try await run.remount(writeBackDelay: 30)
            outcomes.append(await thread.run(.open(slot: 1, "f1", writable: false, create: false)))
            outcomes.append(await thread.run(.rename("f0", "f1")))
            outcomes.append(await thread.run(.pread(slot: 1, offset: 3288, length: 15138)))
            outcomes.append(await thread.run(.pread(slot: 1, offset: 0, length: 4)))
            outcomes.append(await thread.run(.close(slot: 1)))
            outcomes.append(await thread.run(.read("f1")))
            return outcomes
        }
        let replaced = Fill(length: 3778, seed: 2).bytes
        XCTAssertEqual(outcomes.prefix(4).map(\.errno), [0, 0, 0, 0])
        XCTAssertEqual(outcomes[4], Outcome(bytes: Array(replaced[3288...])))
        XCTAssertEqual(outcomes[5], Outcome(bytes: Array(replaced[0..<4])))
        XCTAssertEqual(outcomes[7], Outcome(bytes: Fill(length: 2670, seed: 1).bytes))
    }

    /// Seed 709055300 (quiet, faults `all`, shrunk to 6 steps): the same reader, after the file renamed over it was
    /// then appended to, read the new file: the append's local copy of the Box file took every handle reading that
    /// Box id, the one open on the replaced inode too.
    func testAReaderOfAFileReplacedByARenameIgnoresWritesToTheNewFile() throws {
        let outcomes = try scenario { run, thread in
            var outcomes: [Outcome] = []
            outcomes.append(await thread.run(.writeFile("f1", Fill(length: 1795, seed: 1))))
            outcomes.append(await thread.run(.writeFile("f2", Fill(length: 3442, seed: 2))))
            await run.settled()
            outcomes.append(await thread.run(.open(slot: 1, "f1", writable: false, create: true)))
            outcomes.append(await thread.run(.rename("f2", "f1")))
            await run.settled()
            outcomes.append(await thread.run(.append("f1", Fill(length: 1494, seed: 3))))
            outcomes.append(await thread.run(.pread(slot: 1, offset: 1000, length: 21368)))
            outcomes.append(await thread.run(.close(slot: 1)))
            return outcomes
        }
        XCTAssertEqual(outcomes.prefix(5).map(\.errno), [0, 0, 0, 0, 0])
        XCTAssertEqual(outcomes[5], Outcome(bytes: Array(Fill(length: 1795, seed: 1).bytes[1000...])))
    }
    /// `boxfs status` named a file waiting in a sub-folder by its name alone (`new.txt`, not `t0/docs/deep/new.txt`)
    /// once the folder's node was not in memory: after a remount the tree holds the root only, and here Box cannot
    /// be asked (every request fails). So did a file moved into a folder before its upload.
    func testStatusNamesWaitingUploadsByTheirPathsAfterARemount() throws {
        let (outcomes, names) = try waitingUploadNamesAfterAKill(following: [
            .mkdir("docs"), .mkdir("docs/deep"), .writeFile("docs/deep/new.txt", Fill(length: 100, seed: 1)),
            .writeFile("moved.txt", Fill(length: 200, seed: 2)), .rename("moved.txt", "docs/moved.txt"),
        ])
        XCTAssertEqual(outcomes.map(\.errno), [0, 0, 0, 0, 0])
        XCTAssertEqual(names, ["t0/docs/deep/new.txt", "t0/docs/moved.txt"])
    }

    /// A folder holding a waiting upload renamed, then the mount killed: status named the file by the folder's old
    /// path (kept when the file was written), since the new mount does not hold the folder.
    func testStatusNamesAWaitingUploadByItsFolderPathAfterTheFolderIsRenamed() throws {
        let (outcomes, names) = try waitingUploadNamesAfterAKill(following: [
            .mkdir("docs"), .mkdir("docs/deep"), .writeFile("docs/deep/new.txt", Fill(length: 100, seed: 1)),
            .rename("docs", "papers"),
        ])
        XCTAssertEqual(outcomes.map(\.errno), [0, 0, 0, 0])
        XCTAssertEqual(names, ["t0/papers/deep/new.txt"])
    }

    /// Runs `ops` with uploads held back, kills the core and mounts it again over a Box that fails every request;
    /// answers the ops' outcomes and the paths `boxfs status` names the waiting uploads by.
    private func waitingUploadNamesAfterAKill(following ops: [Op]) throws -> ([Outcome], [String]) {
        let names = Mutex<[String]>([])
        let outcomes = try scenario { run, thread in
            var outcomes: [Outcome] = []
            try await run.remount(writeBackDelay: 60)
            for op in ops { outcomes.append(await thread.run(op)) }
            try await run.killAndRemount(faults: FakeBoxFaults(errorRate: 1))
            let report = await thread.core.statusReport()
            names.withLock { $0 = report.uploads.map(\.name).sorted() }
            run.box.setFaults(.off)
            return outcomes
        }
        return (outcomes, names.withLock { $0 })
    }
}
