import BoxFS
import FakeBox
import Foundation
import Glibc
import XCTest

/// Regression seeds the in-process model's offline periods found (the network cut with `FakeBox.setCut`, as a
/// refused connection), each one sequence against the core. Each fails with its fix undone.
extension CoreRegressionTests {
    /// Seed 13 (in-process, offline periods): `rmdir d0` of a folder with a file, while Box could not be reached,
    /// answered EIO instead of ENOTEMPTY, and dropped the folder's listing before asking Box: every lookup in the
    /// folder then failed with EIO until Box answered, the folder's files unreachable although on this machine.
    func testAnRmdirWhileBoxIsUnreachableKeepsTheFoldersListing() throws {
        let content = Fill(length: 700, seed: 7)
        let outcomes = try scenario { run, thread -> [Outcome] in
            var outcomes = [await thread.run(.mkdir("d0")), await thread.run(.writeFile("d0/f0", content))]
            await run.settled()
            outcomes.append(await thread.run(.read("d0/f0")))
            run.box.setCut(true)
            outcomes.append(await thread.run(.rmdir("d0")))
            outcomes.append(await thread.run(.read("d0/f0")))
            outcomes.append(await thread.run(.list("d0")))
            run.box.setCut(false)
            return outcomes
        }
        XCTAssertEqual(outcomes.prefix(3).map(\.errno), [0, 0, 0])
        XCTAssertEqual(outcomes[3], .error(ENOTEMPTY), "rmdir of a folder the mount shows with a file, Box out of reach")
        XCTAssertEqual(outcomes[4], Outcome(bytes: content.bytes), "the folder's file, read whole before, read back")
        XCTAssertEqual(outcomes[5], Outcome(text: "f0:file:700"))
    }

    /// Seeds 51 and 79 (in-process, offline periods): `rename f1 -> f0` over a Box file while Box could not be
    /// reached was accepted (f1's content journaled as f0's next version), but the removal of f1's own Box file
    /// failed and was never tried again: once Box answered, Box kept `f1` beside `f0`, a file the mount had
    /// renamed away (and showed again at its next listing).
    func testARenameOverAFileWhileBoxIsUnreachableLeavesNoFileAtTheOldNameOnceItAnswers() throws {
        let (outcomes, files, pending) = try scenario { run, thread -> ([Outcome], [String: [UInt8]], Int) in
            var outcomes = [await thread.run(.writeFile("f0", Fill(length: 100, seed: 1))),
                            await thread.run(.writeFile("f1", Fill(length: 200, seed: 2)))]
            await run.settled()
            outcomes.append(await thread.run(.read("f1")))
            run.box.setCut(true)
            outcomes.append(await thread.run(.rename("f1", "f0")))
            run.box.setCut(false)
            let pending = await run.pendingSettled(seconds: 10)
            let deadline = Date().addingTimeInterval(5)
            while run.boxFiles(under: "t0").count > 1, Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
            return (outcomes, run.boxFiles(under: "t0"), pending)
        }
        XCTAssertEqual(outcomes.map(\.errno), [0, 0, 0, 0])
        XCTAssertEqual(pending, 0)
        XCTAssertEqual(Self.named(files, ["one": Fill(length: 100, seed: 1).bytes, "two": Fill(length: 200, seed: 2).bytes]),
                       ["f0": "two"], "Box once it answers again")
    }

    /// Seed 182 (in-process, offline periods): `rename f3 -> f2`, `f3` a Box file and `f2` a new file written while
    /// Box could not be reached: the new file was dropped (its upload discarded) before `f3` was moved on Box, and
    /// the move failed, so the rename answered EIO with `f2`'s content gone for good.
    func testARenameOverANewFileThatFailsForWantOfBoxKeepsTheNewFile() throws {
        let mine = Fill(length: 300, seed: 3)
        let (outcomes, files) = try scenario { run, thread -> ([Outcome], [String: [UInt8]]) in
            var outcomes = [await thread.run(.writeFile("f3", Fill(length: 100, seed: 1)))]
            await run.settled()
            outcomes.append(await thread.run(.read("f3")))
            run.box.setCut(true)
            outcomes.append(await thread.run(.writeFile("f2", mine)))
            outcomes.append(await thread.run(.rename("f3", "f2")))
            outcomes.append(await thread.run(.read("f2")))
            run.box.setCut(false)
            _ = await run.pendingSettled(seconds: 10)
            return (outcomes, run.boxFiles(under: "t0"))
        }
        XCTAssertEqual(outcomes.prefix(3).map(\.errno), [0, 0, 0])
        XCTAssertEqual(outcomes[3], .error(EIO), "the rename needs Box")
        XCTAssertEqual(outcomes[4], Outcome(bytes: mine.bytes), "the new file the failed rename would have replaced")
        XCTAssertEqual(Self.named(files, ["f3": Fill(length: 100, seed: 1).bytes, "mine": mine.bytes]),
                       ["f3": "f3", "f2": "mine"], "Box once it answers again")
    }
}
