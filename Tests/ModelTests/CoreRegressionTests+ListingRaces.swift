@testable import BoxFS
import FakeBox
import Foundation
import Synchronization
import XCTest

/// Racing seeds with listings leaving memory at every fetch (`BOXFS_CORE_MODEL_LISTING_BUDGET=4`, faults `all`):
/// 159396731 (`EEXIST` from `open f0 rw create` right after `write-file f0`), 908776881, 855204219 and 855204243
/// (`EEXIST` from `write-file`), 159396525 (`ENOENT` on `truncate f2` right after the thread wrote it). A lookup
/// listed the folder, and the listing it waited for was stored before the thread's own upload landed; the lookup
/// resumed after the landing and after the local file was let go of, and laid the local files over its copy of the
/// listing, which had neither: `ENOENT` for a name the mount holds (then `create` met it: `EEXIST`). Here the window
/// is held open by the kernel invalidator, which the fetch calls between its store and its answer (a file the kernel
/// holds changed on Box).
extension CoreRegressionTests {
    func testALookupThatListedBeforeAnUploadLandedFindsTheLandedFile() throws {
        let outcomes = try lookupWhileAnUploadLandsAfterTheStore(evictingTheListing: false)
        XCTAssertEqual(outcomes.map(\.errno), [0, 0, 0, 0])
        XCTAssertEqual(outcomes[3], Outcome(text: "file 200"), "stat f1 while its upload landed")
    }

    /// The same, with the folder's listing also evicted before the lookup resumes: its copy is then all there is,
    /// and the mount changed a listing since it was stored, so it is listed again.
    func testALookupThatListedBeforeAnUploadLandedFindsTheFileWhenTheListingWasEvicted() throws {
        let outcomes = try lookupWhileAnUploadLandsAfterTheStore(evictingTheListing: true)
        XCTAssertEqual(outcomes.map(\.errno), [0, 0, 0, 0])
        XCTAssertEqual(outcomes[3], Outcome(text: "file 200"), "stat f1 while its upload landed")
    }

    /// `write-file g`, `stat g` (the kernel holds it), `write-file f1` with its upload held on the wire, then
    /// `stat f1` with every listing dropped: the lookup lists `t0` (no `f1` on Box yet), and the store's call to the
    /// invalidator (g changed on Box meanwhile) waits until f1's upload has landed and its local file is gone.
    private func lookupWhileAnUploadLandsAfterTheStore(evictingTheListing: Bool) throws -> [Outcome] {
        try scenario { run, thread -> [Outcome] in
            let box = run.box
            let core = thread.core
            var outcomes = [await thread.run(.writeFile("g", Fill(length: 100, seed: 1)))]
            await run.settled()
            outcomes.append(await thread.run(.stat("g")))
            let folderInode = try await core.lookup(parent: FileSystem.rootInode, name: "t0").inode
            let g = try await core.lookup(parent: folderInode, name: "g").inode
            let folderID = try XCTUnwrap(box.snapshot.tree()["t0/"]?.id)
            let gID = try XCTUnwrap(box.snapshot.tree()["t0/g"]?.id)
            let upload = box.addRule(FakeBoxRule("POST", FakeBoxRule.newFile, .hold(losingTheAnswer: false)))
            outcomes.append(await thread.run(.writeFile("f1", Fill(length: 200, seed: 2))))
            try Self.expect(await box.waitUntilUsed(upload), "f1's upload is on the wire")
            _ = try box.change { state throws(FakeBoxError) in
                try state.uploadVersion(fileID: gID, content: Fill(length: 120, seed: 3).bytes, name: nil, ifMatch: nil)
            }
            // The invalidator's first call for g (the fetch of t0, just stored) waits for the test, 10 s at most.
            let stored = Atomic<Bool>(false)
            let resume = DispatchSemaphore(value: 0)
            core.setInvalidator { inode in
                guard inode == g, !stored.exchange(true, ordering: .acquiringAndReleasing) else { return }
                _ = resume.wait(timeout: .now() + 10)
            }
            core.dropAllListings()
            let lookup = Task { await thread.run(.stat("f1")) }
            let deadline = ContinuousClock.now + .seconds(10)
            while !stored.load(ordering: .acquiring), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(1))
            }
            try Self.expect(stored.load(ordering: .acquiring), "the lookup's fetch of t0 stored its listing")
            box.release(upload)
            func localGone() -> Bool { core.locals.withLock { $0.file(named: "f1", inFolder: folderID) } == nil }
            while !localGone(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
            let gone = localGone()
            if evictingTheListing { _ = core.tree.withLock { $0.evictListing(of: folderID) } }
            resume.signal()
            outcomes.append(await lookup.value)
            try Self.expect(gone, "f1's upload landed and its local file was let go of")
            return outcomes
        }
    }
}
