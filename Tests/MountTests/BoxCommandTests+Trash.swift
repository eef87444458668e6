import BoxTestSupport
import Foundation
import XCTest

/// `boxfs trash list|restore|purge` (docs/SEMANTICS.md "Box commands").
final class BoxCommandTrashTests: BoxCommandTestCase {
    static let tree = [
        "Reports/2024/q1.txt": "first quarter\n", "Reports/2024/scans/page1.txt": "scanned\n",
        "Reports/keep.txt": "kept\n",
    ]

    func testAFolderRemovedWithRmRIsListedAndRestoredWholeAndByteExact() async throws {
        try await startBoxSim(texts: Self.tree, largeFiles: ["Reports/2024/big.bin": 3 << 20])
        let mount = try mountWritable(options: Self.quietOptions)
        let folder = mount.path("Reports/2024")
        let before = try succeed(["bash", "-c", "cd \"$0\" && find . -type f | sort | xargs sha1sum", folder])
        try succeed(["rm", "-r", folder])
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder))

        let listed = try boxfsSucceeds(["trash", "list", mount.path("")])

        let lines = listed.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        XCTAssertEqual(lines.map { $0.first ?? "" }, [folder + "/"], listed)
        XCTAssertEqual(lines.first?[1], "folder")
        let scoped = try boxfsSucceeds(["trash", "list", mount.path("Reports"), "--json"])
        let entries = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(scoped.utf8)) as? [[String: Any]])
        XCTAssertEqual(entries.compactMap { $0["path"] as? String }, [folder])
        let here = try Shell.bash("cd \"$D\" && \"$B\" trash list", environment: ["D": mount.path("Reports"), "B": try MountFixture.locateBinary().path])
        XCTAssertEqual(here.stdout, listed, "the current folder: \(here.stderr)")

        XCTAssertEqual(try boxfsSucceeds(["trash", "restore", folder]), "\(folder): restored\n")

        let after = try succeed(["bash", "-c", "cd \"$0\" && find . -type f | sort | xargs sha1sum", folder])
        XCTAssertEqual(after, before)
        XCTAssertTrue(after.contains("./scans/page1.txt") && after.contains("./big.bin"), after)
        XCTAssertEqual(try boxfsSucceeds(["trash", "list", mount.path("")]), "")
        XCTAssertEqual(Set(try boxNames(in: "Reports")), ["2024", "keep.txt"])
    }

    /// The control directory's trash view follows the mount's own trash commands at once (no event stream here;
    /// without it the view would be kept for its 30 s).
    func testTheTrashViewFollowsARestoreAndAPurgeAtOnce() async throws {
        try await startBoxSim(texts: ["a.txt": "a\n", "b.txt": "b\n"])
        let mount = try mountWritable(options: Self.quietOptions)
        try succeed(["rm", mount.path("a.txt"), mount.path("b.txt")])
        let trash = mount.path(".box/trash")
        XCTAssertEqual(try succeed(["ls", trash]), "a.txt\nb.txt\n")
        try boxfsSucceeds(["trash", "restore", mount.path("a.txt")])
        XCTAssertEqual(try succeed(["ls", trash]), "b.txt\n", "restored")
        try boxfsSucceeds(["trash", "purge", mount.path("b.txt"), "--yes"])
        XCTAssertEqual(try succeed(["ls", trash]), "", "purged")
        XCTAssertEqual(try succeed(["cat", mount.path("a.txt")]), "a\n")
    }

    func testARestoreWhoseNameIsTakenOrWhoseFolderIsGoneChangesNothing() async throws {
        let mount = try await startAndMount(texts: ["docs/a.txt": "original\n", "old/x.txt": "x\n", "old/y.txt": "y\n"],
                                            options: Self.quietOptions)
        try succeed(["rm", mount.path("docs/a.txt")])
        // Taken on Box (the mount does not know yet): Box's 409.
        let docs = try XCTUnwrap(try api.entry(at: "docs"))
        try api.uploadFile(named: "a.txt", text: "made elsewhere\n", parentID: docs.id)

        let taken = try boxfsFails(["trash", "restore", mount.path("docs/a.txt")])

        XCTAssertTrue(taken.hasPrefix("boxfs trash: restoring a.txt: Box refused (409 item_name_in_use"), taken)
        XCTAssertTrue(try boxfsSucceeds(["trash", "list", mount.path("docs")]).hasPrefix(mount.path("docs/a.txt") + "\t"))
        XCTAssertEqual(try api.text(of: try XCTUnwrap(try api.entry(at: "docs/a.txt")).id), "made elsewhere\n")
        // Taken in the mount: refused before Box is asked.
        try write("new here\n", to: mount.path("docs/b.txt"))
        try succeed(["rm", mount.path("docs/b.txt")])
        try write("newer\n", to: mount.path("docs/b.txt"))
        let local = try boxfsFails(["trash", "restore", mount.path("docs/b.txt")])
        XCTAssertTrue(local.contains("an item of that name is already in docs"), local)
        XCTAssertEqual(try succeed(["cat", mount.path("docs/b.txt")]), "newer\n")

        // Its folder went to the trash after it: the folder comes back first.
        try succeed(["rm", mount.path("old/x.txt")])
        try succeed(["rm", "-r", mount.path("old")])
        XCTAssertFalse(try boxfsSucceeds(["trash", "list", mount.path("")]).contains("old/x.txt"), "x.txt went with old")
        let gone = try boxfsFails(["trash", "restore", mount.path("old/x.txt")])
        XCTAssertTrue(gone.contains("is not there (if it is in the trash too, restore it first)"), gone)
        // The folder brings back what was deleted from inside it, y.txt by its `rm -r` and x.txt before.
        try boxfsSucceeds(["trash", "restore", mount.path("old")])
        XCTAssertEqual(try succeed(["ls", mount.path("old")]), "x.txt\ny.txt\n")
        XCTAssertEqual(try succeed(["cat", mount.path("old/x.txt")]), "x\n")
    }

    func testPurgeNeedsYesAndDeletesForGood() async throws {
        let mount = try await startAndMount(texts: ["big.iso": "iso\n"], options: Self.quietOptions)
        let file = try XCTUnwrap(try api.entry(at: "big.iso"))
        try succeed(["rm", mount.path("big.iso")])

        let unconfirmed = try boxfsFails(["trash", "purge", mount.path("big.iso")])
        XCTAssertTrue(unconfirmed.contains("add --yes to confirm"), unconfirmed)
        XCTAssertEqual(try api.request("GET", "/2.0/files/\(file.id)/trash").status, 200)

        XCTAssertEqual(try boxfsSucceeds(["trash", "purge", mount.path("big.iso"), "--yes"]), "\(mount.path("big.iso")): deleted for good\n")
        XCTAssertEqual(try api.request("GET", "/2.0/files/\(file.id)/trash").status, 404)
        let again = try boxfsFails(["trash", "restore", mount.path("big.iso")])
        XCTAssertEqual(again, "boxfs trash: big.iso is not in the trash (`boxfs trash list` shows what is)\n")
    }

    func testARestoreWhoseAnswerIsLostIsStillARestore() async throws {
        let mount = try await startAndMount(texts: ["d/f.txt": "f\n"], options: Self.quietOptions)
        let folder = try XCTUnwrap(try api.entry(at: "d"))
        try succeed(["rm", "-r", mount.path("d")])
        // The restore is carried out, but its answer never arrives; the repeat finds the folder back.
        try api.cutConnections(pathPrefix: "/2.0/folders/\(folder.id)", method: "POST", phase: .afterHandling, count: 1)
        let before = try requests().count

        XCTAssertEqual(try boxfsSucceeds(["trash", "restore", mount.path("d")]), "\(mount.path("d")): restored\n")

        let posts = try requests().dropFirst(before).filter { $0.method == "POST" && $0.path == "/2.0/folders/\(folder.id)" }
        XCTAssertEqual(posts.map(\.status), [201, 404], "the lost answer was asked again")
        XCTAssertEqual(try succeed(["cat", mount.path("d/f.txt")]), "f\n")
    }
}
