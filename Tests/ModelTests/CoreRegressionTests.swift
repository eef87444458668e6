import BoxFS
import FakeBox
import Foundation
import XCTest

/// Regression seeds: divergences the reference-model tiers found and a fix closed, each replayed in-process as one
/// sequence against the core over `FakeBox`, with the timing it needed made exact by the fake's rules (a request
/// held on the wire until the test lets it go, an answer lost after Box made the change, a 5xx until the rule is
/// removed). Each fails with its fix undone (docs/TESTING.md, "Regression seeds", has the table).
final class CoreRegressionTests: XCTestCase {
    /// Runs `body` on a new core with one thread folder `t0` (faults off, no write-back delay), then ends the core.
    func scenario<T: Sendable>(_ body: @escaping @Sendable (CoreModelRun, CoreExecutor) async throws -> T) throws -> T {
        try blocking {
            let run = CoreModelRun(steps: [], threads: 1, faults: .off, concurrent: false, seed: 1)
            let thread = try await run.start()
            do {
                let result = try await body(run, thread[0])
                await run.stop()
                if let calls = run.journalCallsOnThePool() { XCTFail(calls.description) }
                return result
            } catch {
                await run.stop()
                throw error
            }
        }
    }

    struct Unmet: Error, CustomStringConvertible { let description: String }

    /// Ends the scenario when what it sets up does not happen (a rule never met its request).
    static func expect(_ condition: Bool, _ what: String) throws {
        if !condition { throw Unmet(description: "expected: " + what) }
    }

    /// Box's files as name to what they hold: the name of a known content, a known content with more bytes after
    /// it (`zero+50 B`), else a size; failures then read as what went where.
    static func named(_ files: [String: [UInt8]], _ known: [String: [UInt8]]) -> [String: String] {
        files.mapValues { bytes in
            if let exact = known.first(where: { $0.value == bytes }) { return exact.key }
            if let start = known.filter({ !$0.value.isEmpty && bytes.starts(with: $0.value) }).max(by: { $0.value.count < $1.value.count }) {
                return "\(start.key)+\(bytes.count - start.value.count) B"
            }
            return "\(bytes.count) B"
        }
    }

    /// Seed 22069 (real mount; fixed by fefbd47, "readdirplus hands only the name when the folder's listing was
    /// dropped since opendir"): a snapshot (`opendir`) taken before `rename a -> b`, read after the folder's listing
    /// was dropped, linked `a` to the renamed file's node; the kernel then opened `b`'s file for an `open(O_CREAT)`
    /// of `a`, and its writes replaced `b`'s content.
    func testASnapshotReadAfterARenameAndADroppedListingDoesNotLinkTheOldName() throws {
        let (outcomes, linked) = try scenario { run, thread -> ([Outcome], [String]) in
            var outcomes = [await thread.run(.writeFile("a", Fill(length: 300, seed: 1)))]
            await run.settled()
            outcomes.append(await thread.run(.list("")))
            let core = thread.core
            let folder = try await core.lookup(parent: FileSystem.rootInode, name: "t0").inode
            let handle = try await core.openDirectory(folder)
            let snapshot = try core.readDirectory(handle: handle, offset: 0)
            outcomes.append(await thread.run(.rename("a", "b")))
            let renamed = try await core.lookup(parent: folder, name: "b").inode
            core.dropAllListings()
            var linked: [String] = []
            for entry in snapshot where entry.position >= 2 {
                if case .node(let attributes) = try core.rememberEntry(handle: handle, position: entry.position),
                    attributes.inode == renamed
                {
                    linked.append(entry.name)
                }
            }
            core.releaseDirectory(handle: handle)
            outcomes.append(await thread.run(.writeFile("a", Fill(length: 20, seed: 2))))
            outcomes.append(await thread.run(.read("b")))
            return (outcomes, linked)
        }
        XCTAssertEqual(linked, [], "readdirplus linked the snapshot's name to the renamed file's node")
        XCTAssertEqual(outcomes.prefix(4).map(\.errno), [0, 0, 0, 0])
        XCTAssertEqual(outcomes[4], Outcome(bytes: Fill(length: 300, seed: 1).bytes))
    }

    /// Seed 25075 (real mount; fixed by df2a7c3, "an upload's Box errors before the upload itself are classified
    /// like the upload's own"): `f0`'s first upload landed after `rename f0 -> f1`; the entry's next attempt looks
    /// at the landed file first, and the file was deleted on Box just before that look. The 404 parked the entry
    /// (Box lacked `f1` for good, status not idle); it is the target gone, and the content comes back as `f1`.
    func testAFileDeletedOnBoxBeforeItsMoveToTheNameRenamedToComesBackThere() throws {
        let content = Fill(length: 500, seed: 1)
        let (outcomes, pending, files) = try scenario { run, thread -> ([Outcome], Int, [String: [UInt8]]) in
            let box = run.box
            let upload = box.addRule(FakeBoxRule("POST", FakeBoxRule.newFile, .hold(losingTheAnswer: false)))
            var outcomes = [await thread.run(.writeFile("f0", content))]
            try Self.expect(await box.waitUntilUsed(upload), "the first upload is on the wire")
            outcomes.append(await thread.run(.rename("f0", "f1")))
            // The next attempt's look at the file that landed waits on the wire while the file is deleted on Box.
            let look = box.addRule(FakeBoxRule("GET", "/2.0/files/", .hold(losingTheAnswer: false)))
            box.release(upload)
            try Self.expect(await box.waitUntilUsed(look), "the next attempt looks at the landed file")
            let landed = try XCTUnwrap(box.snapshot.tree().first { $0.key.hasPrefix("t0/f") }?.value)
            try box.change { state throws(FakeBoxError) in try state.delete(id: landed.id, kind: .file, recursive: false, ifMatch: nil) }
            box.release(look)
            let pending = await run.pendingSettled(seconds: 3)
            return (outcomes, pending, run.boxFiles(under: "t0"))
        }
        XCTAssertEqual(outcomes.map(\.errno), [0, 0])
        XCTAssertEqual(pending, 0, "the entry was parked")
        XCTAssertEqual(Self.named(files, ["first": content.bytes]), ["f1": "first"])
    }

    /// Seed 33015 (real mount, faults `all`; fixed by d37b7fc, "a lost-answer upload's file found after its entry's
    /// drop is removed in its folder's cleanups"): new `f`'s upload was stored with its answer lost, then `f` was
    /// deleted; the file Box stored is removed as a leftover, but a 409 names no folder, so the removal waited in no
    /// folder's cleanups, and `rename g -> f` met the file before its removal ran: `EEXIST` for a name shown free.
    func testARenameToTheNameOfADeletedLostAnswerUploadWaitsForItsRemoval() throws {
        let g = Fill(length: 200, seed: 3)
        let (outcomes, files) = try scenario { run, thread -> ([Outcome], [String: [UInt8]]) in
            let box = run.box
            var outcomes = [await thread.run(.writeFile("g", g))]
            await run.settled()
            let lost = box.addRule(FakeBoxRule("POST", FakeBoxRule.newFile, .loseAnswer))
            let refused = box.addRule(FakeBoxRule("POST", FakeBoxRule.newFile, count: .max, .status(503)))
            outcomes.append(await thread.run(.writeFile("f", Fill(length: 100, seed: 4))))
            try Self.expect(await box.waitUntilUsed(lost), "Box stored f, its answer lost")
            let removal = box.addRule(FakeBoxRule("DELETE", "/2.0/files/", .hold(losingTheAnswer: false)))
            outcomes.append(await thread.run(.unlink("f")))
            try Self.expect(await box.waitUntilUsed(removal), "the removal of what the lost answer left is on the wire")
            box.removeRule(refused)
            let letGo = Task {
                try? await Task.sleep(for: .milliseconds(300))
                box.release(removal)
            }
            outcomes.append(await thread.run(.rename("g", "f")))
            await letGo.value
            _ = await run.pendingSettled()
            return (outcomes, run.boxFiles(under: "t0"))
        }
        XCTAssertEqual(outcomes.map(\.errno), [0, 0, 0, 0])
        XCTAssertEqual(Self.named(files, ["g": g.bytes, "f": Fill(length: 100, seed: 4).bytes]), ["f": "g"])
    }

    /// Seed 31025 (real mount, faults `all`; fixed by 2cf6646, "a namespace call that meets a hidden lost-answer
    /// upload's file removes it as a leftover and tries again"): new `a`'s upload was stored with its answer lost,
    /// `a` was renamed over the Box file `x`, and `x` renamed back to `a`. The mount hides the file the lost answer
    /// left at `a`, but Box answered the rename 409: `EEXIST` for a name shown free.
    func testARenameToTheNameALostAnswerUploadLandedUnderSucceeds() throws {
        let a = Fill(length: 120, seed: 5)
        let (outcomes, files, xID, aID) = try scenario { run, thread -> ([Outcome], [String: [UInt8]], String?, String?) in
            let box = run.box
            var outcomes = [await thread.run(.writeFile("x", Fill(length: 80, seed: 6)))]
            await run.settled()
            let xID = box.snapshot.tree()["t0/x"]?.id
            let lost = box.addRule(FakeBoxRule("POST", FakeBoxRule.newFile, .loseAnswer))
            // The entry's next attempts fail until the renames are done (its look at the old place too).
            let refused = box.addRule(FakeBoxRule("POST", FakeBoxRule.newFile, count: .max, .status(503)))
            let looks = box.addRule(FakeBoxRule("OPTIONS", "/2.0/files/content", count: .max, .status(503)))
            outcomes.append(await thread.run(.writeFile("a", a)))
            try Self.expect(await box.waitUntilUsed(lost), "Box stored a, its answer lost")
            outcomes.append(await thread.run(.rename("a", "x")))
            outcomes.append(await thread.run(.rename("x", "a")))
            outcomes.append(await thread.run(.list("")))
            box.removeRule(refused)
            box.removeRule(looks)
            _ = await run.pendingSettled()
            outcomes.append(await thread.run(.read("a")))
            return (outcomes, run.boxFiles(under: "t0"), xID, box.snapshot.tree()["t0/a"]?.id)
        }
        XCTAssertEqual(outcomes.map(\.errno), [0, 0, 0, 0, 0, 0])
        XCTAssertEqual(outcomes[4], Outcome(text: "a:file:120"))
        XCTAssertEqual(outcomes[5], Outcome(bytes: a.bytes))
        XCTAssertEqual(Self.named(files, ["a": a.bytes, "x": Fill(length: 80, seed: 6).bytes]), ["a": "a"])
        XCTAssertEqual(aID, xID, "x's file, renamed, with a's content as its next version")
    }

    /// Seeds 11037, 8143, 11050 (real mount, a `kill -9`; fixed by 98614f9, "an entry renamed while its new-file
    /// upload was on the wire finds that file at its old place"): new `f3` renamed to `f1` while its first upload
    /// was on the wire, and the daemon killed before Box's answer; Box stored the upload as `f3`. The next mount
    /// sent the content up again as a new `f1`, and Box kept `f3` for good.
    func testAKillAfterARenameDuringTheFirstUploadLeavesNoFileAtTheOldName() throws {
        let content = Fill(length: 700, seed: 7)
        let (outcomes, files, uploads) = try scenario { run, thread -> ([Outcome], [String: [UInt8]], Int) in
            let box = run.box
            let upload = box.addRule(FakeBoxRule("POST", FakeBoxRule.newFile, .hold(losingTheAnswer: true)))
            var outcomes = [await thread.run(.writeFile("f3", content))]
            try Self.expect(await box.waitUntilUsed(upload), "the first upload is on the wire")
            outcomes.append(await thread.run(.rename("f3", "f1")))
            try await run.remount(writeBackDelay: 0, kill: true) {
                // Box stores the upload the killed daemon sent, under the name it was sent with.
                box.release(upload)
                while box.snapshot.tree()["t0/f3"] == nil { try? await Task.sleep(for: .milliseconds(1)) }
            }
            _ = await run.pendingSettled()
            outcomes.append(await thread.run(.read("f1")))
            outcomes.append(await thread.run(.list("")))
            let uploads = box.requestLog.filter { $0 == "POST " + FakeBoxRule.newFile }.count
            return (outcomes, run.boxFiles(under: "t0"), uploads)
        }
        XCTAssertEqual(outcomes.map(\.errno), [0, 0, 0, 0])
        XCTAssertEqual(outcomes[2], Outcome(bytes: content.bytes))
        XCTAssertEqual(outcomes[3], Outcome(text: "f1:file:700"))
        XCTAssertEqual(Self.named(files, ["content": content.bytes]), ["f1": "content"], "Box holds the file at its new name only")
        XCTAssertEqual(uploads, 1, "the file that landed was moved, not sent again")
    }

    /// Seed 35064 (real mount, faults `all`; fixed by aa1f8c2, "a rename builds only on a version of the file it
    /// replaces"): new `f3` renamed over the Box file `f1` while its first upload was on the wire, then the Box file
    /// `f0` renamed over `f1` before that upload answered, then `f1` appended to. The second rename took what the
    /// upload made (a new file under `f3`, removed as a leftover) for the version to build on: `f0`'s content and
    /// the append went to a removed file, tried for ever, and `f1` showed an older version.
    func testTwoRenamesOntoOneNameWhileTheFirstsUploadIsOnTheWireKeepTheSecondsContent() throws {
        let one = Fill(length: 400, seed: 8), zero = Fill(length: 300, seed: 9), more = Fill(length: 50, seed: 10)
        let (outcomes, pending, files, ids) = try scenario { run, thread -> ([Outcome], Int, [String: [UInt8]], [String?]) in
            let box = run.box
            var outcomes = [await thread.run(.writeFile("f1", one)), await thread.run(.writeFile("f0", zero))]
            await run.settled()
            let f1 = box.snapshot.tree()["t0/f1"]?.id
            let upload = box.addRule(FakeBoxRule("POST", FakeBoxRule.newFile, .hold(losingTheAnswer: false)))
            outcomes.append(await thread.run(.writeFile("f3", Fill(length: 200, seed: 11))))
            try Self.expect(await box.waitUntilUsed(upload), "f3's first upload is on the wire")
            outcomes.append(await thread.run(.rename("f3", "f1")))
            // The second rename lets that upload finish first: Box answers it while the rename waits.
            let letGo = Task {
                try? await Task.sleep(for: .milliseconds(300))
                box.release(upload)
            }
            outcomes.append(await thread.run(.rename("f0", "f1")))
            await letGo.value
            outcomes.append(await thread.run(.append("f1", more)))
            outcomes.append(await thread.run(.read("f1")))
            let pending = await run.pendingSettled(seconds: 3)
            return (outcomes, pending, run.boxFiles(under: "t0"), [f1, box.snapshot.tree()["t0/f1"]?.id])
        }
        XCTAssertEqual(outcomes.map(\.errno), [0, 0, 0, 0, 0, 0, 0])
        XCTAssertEqual(outcomes[6], Outcome(bytes: zero.bytes + more.bytes), "f1 holds the second rename and the append")
        XCTAssertEqual(pending, 0, "an upload is tried for ever")
        XCTAssertEqual(Self.named(files, ["one": one.bytes, "zero": zero.bytes, "three": Fill(length: 200, seed: 11).bytes]),
                       ["f1": "zero+50 B"], "no leftover, no conflicted copy")
        XCTAssertEqual(ids[1], ids[0], "the same Box file takes each save")
    }

    /// Seed 36075 (real mount, faults `all`; fixed by d8f8535, "a truncate or time set by path holds the file's
    /// local copy until the change is made"): `truncate(2)` by path took the file's local copy, then waited for the
    /// account's quota while the upload of an earlier truncate landed; nobody had the copy open, so it was dropped,
    /// and the truncate met a local file that was gone: `EBADF`. Here Box holds the quota lookup while that upload
    /// lands.
    func testATruncateByPathWhileTheFilesUploadLandsChangesTheFile() throws {
        let start = Fill(length: 6, seed: 12)
        let (outcomes, files) = try scenario { run, thread -> ([Outcome], [String: [UInt8]]) in
            let box = run.box
            var outcomes = [await thread.run(.writeFile("t", start))]
            await run.settled()
            // A new core: the quota is looked up at the first write that grows a file.
            try await run.remount(writeBackDelay: 0)
            let upload = box.addRule(FakeBoxRule("POST", "/api/2.0/files/", .hold(losingTheAnswer: false)))
            outcomes.append(await thread.run(.truncate("t", size: 3)))
            try Self.expect(await box.waitUntilUsed(upload), "the first truncate's upload is on the wire")
            let quota = box.addRule(FakeBoxRule("GET", "/2.0/users/me", .hold(losingTheAnswer: false)))
            let grown = Task { await thread.run(.truncate("t", size: 100)) }
            try Self.expect(await box.waitUntilUsed(quota), "the growing truncate asks for the quota")
            box.release(upload)
            // The upload's answer is handled (its entry leaves the journal) while the truncate waits.
            _ = await run.pendingSettled()
            box.release(quota)
            outcomes.append(await grown.value)
            outcomes.append(await thread.run(.read("t")))
            _ = await run.pendingSettled()
            return (outcomes, run.boxFiles(under: "t0"))
        }
        let expected = Array(start.bytes.prefix(3)) + [UInt8](repeating: 0, count: 97)
        XCTAssertEqual(outcomes.map(\.errno), [0, 0, 0, 0])
        XCTAssertEqual(outcomes[3], Outcome(bytes: expected))
        XCTAssertEqual(Self.named(files, ["start": start.bytes, "sta": Array(start.bytes.prefix(3)), "sta+97 zeros": expected]),
                       ["t": "sta+97 zeros"])
    }

    /// Seed 9220 (real mount, a `kill -9`; fixed by 5027d53, "leftovers are journaled until Box confirms their
    /// removal ... removed by the next mount after a kill"): new `tmp` renamed over the Box file `f` while its first
    /// upload was on the wire; the upload landed as `tmp`, a leftover of the mount's own, whose removal failed (503s)
    /// and was then cut short by a kill. Box kept `tmp` for good, a name the mount showed free (a new `tmp` later
    /// met it as a 409 and became a conflicted copy).
    func testALeftoverWhoseRemovalFailedIsRemovedAfterAKillAndRemount() throws {
        let old = Fill(length: 90, seed: 13), saved = Fill(length: 60, seed: 14)
        let (outcomes, files) = try scenario { run, thread -> ([Outcome], [String: [UInt8]]) in
            let box = run.box
            var outcomes = [await thread.run(.writeFile("f", old))]
            await run.settled()
            let upload = box.addRule(FakeBoxRule("POST", FakeBoxRule.newFile, .hold(losingTheAnswer: false)))
            outcomes.append(await thread.run(.writeFile("tmp", saved)))
            try Self.expect(await box.waitUntilUsed(upload), "tmp's first upload is on the wire")
            let removal = box.addRule(FakeBoxRule("DELETE", "/2.0/files/", count: .max, .status(503)))
            outcomes.append(await thread.run(.rename("tmp", "f")))
            box.release(upload)
            try Self.expect(await box.waitUntilUsed(removal), "the removal of what landed as tmp fails")
            _ = await run.pendingSettled()
            try await run.remount(writeBackDelay: 0, kill: true) { box.removeRule(removal) }
            let deadline = ContinuousClock.now + .seconds(3)
            while run.boxFiles(under: "t0").count > 1, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(1))
            }
            outcomes.append(await thread.run(.list("")))
            outcomes.append(await thread.run(.read("f")))
            return (outcomes, run.boxFiles(under: "t0"))
        }
        XCTAssertEqual(outcomes.map(\.errno), [0, 0, 0, 0, 0])
        XCTAssertEqual(outcomes[3], Outcome(text: "f:file:60"))
        XCTAssertEqual(outcomes[4], Outcome(bytes: saved.bytes))
        XCTAssertEqual(Self.named(files, ["old": old.bytes, "saved": saved.bytes]), ["f": "saved"], "no leftover on Box")
    }

    /// Seeds 27015, 27021, 27026 (real mount, faults `all`; fixed by 0a1b81d, "a dropped upload entry whose
    /// attempt's answer was lost removes what Box stored"): new `f`'s first upload was stored by Box with its answer
    /// lost, and `f` was deleted while the upload waited to be tried again. The mount took it for a file Box never
    /// had, so nothing removed what Box stored: the deleted file came back, on Box and in the mount.
    func testANewFileDeletedAfterItsUploadsAnswerWasLostLeavesNothingOnBox() throws {
        let (outcomes, files) = try scenario { run, thread -> ([Outcome], [String: [UInt8]]) in
            let box = run.box
            let lost = box.addRule(FakeBoxRule("POST", FakeBoxRule.newFile, .loseAnswer))
            let refused = box.addRule(FakeBoxRule("POST", FakeBoxRule.newFile, count: .max, .status(503)))
            var outcomes = [await thread.run(.writeFile("f", Fill(length: 150, seed: 15)))]
            try Self.expect(await box.waitUntilUsed(lost), "Box stored f, its answer lost")
            outcomes.append(await thread.run(.unlink("f")))
            box.removeRule(refused)
            _ = await run.pendingSettled()
            let deadline = ContinuousClock.now + .seconds(1)
            while !run.boxFiles(under: "t0").isEmpty, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(1))
            }
            outcomes.append(await thread.run(.list("")))
            return (outcomes, run.boxFiles(under: "t0"))
        }
        XCTAssertEqual(outcomes.map(\.errno), [0, 0, 0])
        XCTAssertEqual(outcomes[2], Outcome(text: ""))
        XCTAssertEqual(Self.named(files, ["f": Fill(length: 150, seed: 15).bytes]), [:], "Box holds nothing")
    }

    /// Seed 30056, its kill (real mount, faults `all`; fixed by 5609333, "forget a sent place only once saved"):
    /// `old`'s first upload was stored with its answer lost, and `old` renamed to `new`. The entry's next attempt
    /// found Box's file at `old` and forgot that place in the journal at once; the daemon was killed before it saved
    /// what it found, so the next run sent the content up as a new `new`, and the file stayed under `old` for good.
    /// Here the kill comes while the found file is being fetched.
    func testAKillAfterARenamedFilesLostUploadWasFoundLeavesNothingUnderTheOldName() throws {
        let content = Fill(length: 250, seed: 16)
        let (outcomes, files, storedID, newID) = try scenario { run, thread -> ([Outcome], [String: [UInt8]], String?, String?) in
            let box = run.box
            let lost = box.addRule(FakeBoxRule("POST", FakeBoxRule.newFile, .loseAnswer))
            let refused = box.addRule(FakeBoxRule("POST", FakeBoxRule.newFile, count: .max, .status(503)))
            var outcomes = [await thread.run(.writeFile("old", content))]
            try Self.expect(await box.waitUntilUsed(lost), "Box stored old, its answer lost")
            let stored = try XCTUnwrap(box.snapshot.tree()["t0/old"]?.id)
            outcomes.append(await thread.run(.rename("old", "new")))
            let fetch = box.addRule(FakeBoxRule("GET", "/2.0/files/\(stored)", .hold(losingTheAnswer: true)))
            box.removeRule(refused)
            try Self.expect(await box.waitUntilUsed(fetch), "the next attempt found the file under old and fetches it")
            try await run.remount(writeBackDelay: 0, kill: true) { box.release(fetch) }
            _ = await run.pendingSettled()
            outcomes.append(await thread.run(.list("")))
            outcomes.append(await thread.run(.read("new")))
            return (outcomes, run.boxFiles(under: "t0"), stored, box.snapshot.tree()["t0/new"]?.id)
        }
        XCTAssertEqual(outcomes.map(\.errno), [0, 0, 0, 0])
        XCTAssertEqual(outcomes[2], Outcome(text: "new:file:250"))
        XCTAssertEqual(outcomes[3], Outcome(bytes: content.bytes))
        XCTAssertEqual(Self.named(files, ["content": content.bytes]), ["new": "content"], "nothing under old")
        XCTAssertEqual(newID, storedID, "the file Box stored was moved, not sent again")
    }

    /// Seed 11045 (real mount; fixed by 98614f9, "renames follow the source by its inode"): a rename of the new file
    /// `d0/f3` over `f2` took the source's item before waiting for the target folder's listing, and the source's
    /// first upload landed meanwhile, giving its inode the Box id; the rename went on with the made-up `local-N` id
    /// (a local copy or a Box rename of `local-1`: `EIO`), or left the renamed name on the source's own Box file,
    /// which it then sent to the trash (`ENOENT` at the next open). Here Box holds the rename's listing of the
    /// target folder while the upload lands.
    func testARenameOverAFileWhileTheSourcesFirstUploadLandsKeepsItsContent() throws {
        let old = Fill(length: 70, seed: 17), new = Fill(length: 110, seed: 18)
        let (outcomes, renamed, files, ids) = try scenario { run, thread -> ([Outcome], Int32, [String: [UInt8]], [String?]) in
            let box = run.box
            var outcomes = [await thread.run(.writeFile("f2", old)), await thread.run(.mkdir("d0"))]
            await run.settled()
            let before = box.snapshot.tree()["t0/f2"]?.id
            let folderID = try XCTUnwrap(box.snapshot.tree()["t0/"]?.id)
            let upload = box.addRule(FakeBoxRule("POST", FakeBoxRule.newFile, .hold(losingTheAnswer: false)))
            outcomes.append(await thread.run(.writeFile("d0/f3", new)))
            try Self.expect(await box.waitUntilUsed(upload), "f3's first upload is on the wire")
            let core = thread.core
            let folder = try await core.lookup(parent: FileSystem.rootInode, name: "t0").inode
            let d0 = try await core.lookup(parent: folder, name: "d0").inode
            _ = try await core.lookup(parent: d0, name: "f3")
            _ = try await core.lookup(parent: folder, name: "f2")
            // The rename lists the target folder again; Box holds that listing until the upload has landed.
            core.dropAllListings()
            let listing = box.addRule(FakeBoxRule("GET", "/2.0/folders/\(folderID)/items", .hold(losingTheAnswer: false)))
            let rename = Task { () -> Int32 in
                do throws(FSError) {
                    try await core.rename(parent: d0, name: "f3", newParent: folder, newName: "f2", noReplace: false)
                } catch {
                    return error.errno
                }
                return 0
            }
            try Self.expect(await box.waitUntilUsed(listing), "the rename lists the target folder")
            box.release(upload)
            _ = await run.pendingSettled()
            box.release(listing)
            let renamed = await rename.value
            outcomes.append(await thread.run(.read("f2")))
            outcomes.append(await thread.run(.list("d0")))
            _ = await run.pendingSettled()
            return (outcomes, renamed, run.boxFiles(under: "t0"), [before, box.snapshot.tree()["t0/f2"]?.id])
        }
        XCTAssertEqual(renamed, 0, "rename d0/f3 -> f2")
        XCTAssertEqual(outcomes.map(\.errno), [0, 0, 0, 0, 0])
        XCTAssertEqual(outcomes[3], Outcome(bytes: new.bytes))
        XCTAssertEqual(outcomes[4], Outcome(text: ""))
        XCTAssertEqual(Self.named(files, ["old": old.bytes, "new": new.bytes]), ["f2": "new"])
        XCTAssertEqual(ids[1], ids[0], "f3's content is f2's next version")
    }

    /// Seed 905161936 (in-process, faults `all`, racing): a new version of the Box file `f0` was stored with its
    /// answer lost, and `g` was renamed over `f0` meanwhile. The rename's entry builds on the version `f0` had
    /// before; Box's current version was the lost-answer upload of the entry the rename replaced, which the mount
    /// knew by no version id, so the 412 was taken for someone else's change: a conflicted copy `f0 (conflict …)`
    /// with the renamed content, and `f0` keeping the replaced content. Also: the fake stored a body whose
    /// `Content-MD5` did not match (Box refuses it with 400 `bad_digest`).
    func testARenameOverAFileWhoseVersionUploadLostItsAnswerBuildsOnThatVersion() throws {
        let first = Fill(length: 300, seed: 21), second = Fill(length: 280, seed: 22), renamed = Fill(length: 310, seed: 23)
        let (outcomes, files, ids) = try scenario { run, thread -> ([Outcome], [String: [UInt8]], [String?]) in
            let box = run.box
            var outcomes = [await thread.run(.writeFile("f0", first)), await thread.run(.writeFile("g", renamed))]
            await run.settled()
            let f0 = try XCTUnwrap(box.snapshot.tree()["t0/f0"]?.id)
            let version = box.addRule(FakeBoxRule("POST", "/api/2.0/files/\(f0)/content", .hold(losingTheAnswer: true)))
            outcomes.append(await thread.run(.writeFile("f0", second)))
            try Self.expect(await box.waitUntilUsed(version), "f0's new version is on the wire")
            // The rename waits for the upload on the wire: Box stores it (its answer lost) while the rename waits.
            let letGo = Task {
                try? await Task.sleep(for: .milliseconds(300))
                box.release(version)
            }
            outcomes.append(await thread.run(.rename("g", "f0")))
            await letGo.value
            _ = await run.pendingSettled()
            outcomes.append(await thread.run(.read("f0")))
            outcomes.append(await thread.run(.list("")))
            return (outcomes, run.boxFiles(under: "t0"), [f0, box.snapshot.tree()["t0/f0"]?.id])
        }
        XCTAssertEqual(outcomes.map(\.errno), [0, 0, 0, 0, 0, 0])
        XCTAssertEqual(outcomes[4], Outcome(bytes: renamed.bytes))
        XCTAssertEqual(outcomes[5], Outcome(text: "f0:file:310"))
        XCTAssertEqual(Self.named(files, ["first": first.bytes, "second": second.bytes, "renamed": renamed.bytes]),
                       ["f0": "renamed"], "no conflicted copy, and f0 holds the renamed content")
        XCTAssertEqual(ids[1], ids[0], "the renamed content is f0's next version")
    }

    /// Seed 401770801 (in-process, faults `all`, racing): a new file's upload was stored with its answer lost; the
    /// next attempt's 409 named the file Box held (this content: the entry's own), and the look at that file failed.
    /// The upload was taken as landed with the 409's mini form, which has no size: once the local file was let go
    /// of, `ls` showed `f2` with 0 bytes.
    func testANewFileWhoseLostAnswerUploadIsFoundByA409IsListedWithItsSize() throws {
        let content = Fill(length: 48_407, seed: 31)
        let (outcomes, files) = try scenario { run, thread -> ([Outcome], [String: [UInt8]]) in
            let box = run.box
            let lost = box.addRule(FakeBoxRule("POST", FakeBoxRule.newFile, .loseAnswer))
            // Every attempt of the client's look at the file Box holds fails (its retry policy makes 6).
            let look = box.addRule(FakeBoxRule("GET", "/2.0/files/", count: 6, .status(503)))
            var outcomes = [await thread.run(.writeFile("f2", content))]
            try Self.expect(await box.waitUntilUsed(lost), "Box stored f2, its answer lost")
            try Self.expect(await box.waitUntilUsed(look, count: 6), "the look at the file the 409 names failed")
            _ = await run.pendingSettled()
            outcomes.append(await thread.run(.list("")))
            outcomes.append(await thread.run(.read("f2")))
            return (outcomes, run.boxFiles(under: "t0"))
        }
        XCTAssertEqual(outcomes.map(\.errno), [0, 0, 0])
        XCTAssertEqual(outcomes[1], Outcome(text: "f2:file:48407"), "the listing shows the size Box holds")
        XCTAssertEqual(outcomes[2], Outcome(bytes: content.bytes))
        XCTAssertEqual(Self.named(files, ["content": content.bytes]), ["f2": "content"])
    }
}
