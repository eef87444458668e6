import BoxTestSupport
import Foundation
import XCTest

/// A rename whose source's first upload lands while the rename waits on Box.
extension WriteRaceTests {
    /// Writes the new file `d0/f3`, has Box hold its first upload 1.5 s, and renames it to `destination` at the
    /// root while Box holds the rename's listing of the root 3 s: the upload lands in the middle of the rename.
    /// `lookups`: how many times the kernel looks the target up for the rename (each lists the root, since the
    /// mount keeps no listing here).
    private func renameWhileTheFirstUploadLands(to destination: String, lookups: Int) async throws -> MountFixture {
        let mount = try await startAndMount(texts: ["f2": "old f2\n"], options: [
            "dir_cache_ttl=0", "entry_timeout=60", "attr_timeout=60", "events=off"])
        try succeed(["mkdir", mount.path("d0")])
        try await waitUntilSettled(mount)
        let upload = try api.addFault(["path_prefix": UploadPaths.newFile, "method": "POST", "latency_ms": 1500,
                                       "count": 1])
        try write("new f3\n", to: mount.path("d0/f3"))
        try await waitUntilUsed(fault: upload)
        // Both names are looked up now (the kernel keeps them a minute): it still looks a rename's target up
        // again (once if it exists, twice if not).
        var info = stat()
        XCTAssertEqual(stat(mount.path("d0/f3"), &info), 0)
        _ = stat(mount.path(destination), &info)
        // The kernel's lookups pass; the rename's own listing of the target folder is held until the upload has landed.
        let listing = try api.addFault(["path_prefix": "/2.0/folders/0/items", "method": "GET", "latency_ms": 3000,
                                        "skip": lookups, "count": 1])
        let renamed = Glibc.rename(mount.path("d0/f3"), mount.path(destination))
        XCTAssertEqual(renamed, 0, "rename: errno \(errno)")
        XCTAssertFalse(try faultIsPending(listing), "the rename listed the root")
        XCTAssertFalse(try requests().matching("POST", UploadPaths.newFile).filter { $0.status == 201 }.isEmpty,
                       "the upload landed while the rename waited")
        return mount
    }

    /// Defect (seed 11045 of the reference-model tier): a rename over a file took the source's item before its
    /// awaits (the target folder's listing). When the source's first upload landed meanwhile, its inode took the
    /// Box id, and the rename went on with the made-up local id: the rename failed with `EIO` (a local copy of
    /// `local-1` asked of Box), or the renamed name kept the source's Box file, which the rename itself sent to
    /// the trash (`ENOENT` on the next open).
    func testARenameOverAFileWhileTheSourcesFirstUploadLandsKeepsItsContent() async throws {
        let existing = "f2"
        let mount = try await renameWhileTheFirstUploadLands(to: existing, lookups: 1)
        let before = try XCTUnwrap(try api.entry(at: existing))
        XCTAssertEqual(try succeed(["cat", mount.path(existing)]), "new f3\n")
        XCTAssertEqual(try succeed(["ls", mount.path("d0")]), "")
        try await waitUntilSettled(mount)
        try await waitForBox(existing, text: "new f3\n")
        XCTAssertEqual(try api.entry(at: existing)?.id, before.id, "f3's content is f2's next version")
        XCTAssertEqual(try boxNames(in: "d0"), [])
        XCTAssertEqual(try boxNames(in: ""), ["d0", "f2"])
        XCTAssertEqual(try succeed(["cat", mount.path(existing)]), "new f3\n")
    }

    /// The same race for a rename to a free name (the `mv` `EIO` seen once in the soaks): the Box file that landed
    /// is moved, under its new name.
    func testARenameToAFreeNameWhileTheSourcesFirstUploadLandsMovesIt() async throws {
        let mount = try await renameWhileTheFirstUploadLands(to: "f9", lookups: 2)
        XCTAssertEqual(try succeed(["cat", mount.path("f9")]), "new f3\n")
        XCTAssertEqual(try succeed(["ls", mount.path("d0")]), "")
        try await waitUntilSettled(mount)
        try await waitForBox("f9", text: "new f3\n")
        XCTAssertEqual(try boxNames(in: "d0"), [])
        XCTAssertEqual(try boxNames(in: ""), ["d0", "f2", "f9"])
        XCTAssertEqual(try succeed(["cat", mount.path("f2")]), "old f2\n")
    }
}

extension WriteRaceTests {
    /// Defect (model seed 25075): an upload whose content Box may hold already (the first upload of a file renamed
    /// while it was on the wire) begins with a look at that file. When the file was deleted on Box just before that
    /// look, the 404 parked the entry: the content came back only after the park interval (in the soak, Box still
    /// lacked it after 90 s). The same 404 from the upload itself brings the content back as a new file at once.
    func testAFileDeletedOnBoxBeforeItsMoveToTheNameRenamedToComesBackThere() async throws {
        let mount = try await startAndMount(options: ["write_back_delay=1", "events=off"])
        // The next attempt's look at the file that landed is held 3 s, while the file is deleted on Box.
        let look = try api.addFault(["path_prefix": "/2.0/files/", "method": "GET", "latency_ms": 3000, "count": 1])
        try await renameDuringFirstUpload("first\n", from: "f0", to: "f1", in: mount, latency: 1500)
        // The mount renames the file that landed as f0 at once; the entry's next attempt looks at it again.
        let landed = try await waitForBox("f1", text: "first\n", timeout: 30)
        try await waitUntilUsed(fault: look)
        try api.deleteFile(landed.id)
        try await waitForAnswers("GET", "/2.0/files/\(landed.id)", status: 404)

        try await waitUntilSettled(mount, timeout: 30)
        try await waitForBox("f1", text: "first\n", timeout: 10)
        XCTAssertEqual(try boxNames(in: ""), ["f1"])
        XCTAssertEqual(try succeed(["cat", mount.path("f1")]), "first\n")
    }
}

extension WriteRaceTests {
    /// Defect (model seed 25172): a rename over a new file dropped that file's pending upload at once. An upload
    /// whose answer was handled just then (between the rename's look at the file and the drop) stayed on Box
    /// under the name it was sent with, nobody's file. The rename now lets an upload on the wire finish first and
    /// builds on what it made: the renamed content becomes that Box file's next version.
    func testARenameOverANewFileWhoseFirstUploadIsOnTheWireBuildsOnWhatItMade() async throws {
        // f1's own upload waits longer than the rename does.
        let mount = try await startAndMount(options: ["write_back_delay=4", "events=off"])
        try await writeNewFile("first\n", to: "f2", in: mount, holdingItsUploadFor: 2000)
        try write("renamed over\n", to: mount.path("f1"))
        try succeed(["mv", mount.path("f1"), mount.path("f2")])
        XCTAssertEqual(try succeed(["cat", mount.path("f2")]), "renamed over\n")

        try await waitUntilSettled(mount)
        try await waitForBox("f2", text: "renamed over\n")
        XCTAssertEqual(try boxNames(in: ""), ["f2"])
        let calls = try requests()
        XCTAssertEqual(calls.matching("POST", UploadPaths.newFile).succeeded.count, 1, "one new file: the first upload's")
        XCTAssertEqual(calls.matching("POST", "/api/2.0/files/[0-9]+/content").succeeded.count, 1, "its next version")
        XCTAssertTrue(calls.matching("DELETE", "/2.0/files/[0-9]+").isEmpty, "nothing made only to be removed")
    }
}
