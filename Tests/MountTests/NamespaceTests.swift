import BoxTestSupport
import Foundation
import XCTest

/// mkdir, rmdir, unlink and rename happen on Box before the command returns; renames keep Box ids; a file that
/// has not reached Box yet follows its renames and deletion.
final class NamespaceTests: WriteTestCase {
    func testMkdirCreatesTheFolderOnBoxBeforeItReturns() async throws {
        let mount = try await startAndMount()
        try succeed(["mkdir", "-p", mount.path("projects/2026/q4")])
        // No polling: the folder exists on Box as soon as mkdir has returned.
        XCTAssertEqual(try api.entry(at: "projects/2026/q4")?.isFolder, true)
        XCTAssertEqual(try succeed(["ls", mount.path("projects/2026")]), "q4\n")
    }

    func testRmdirOfAFolderWithEntriesIsENOTEMPTYAndOfAnEmptyOneRemovesIt() async throws {
        let mount = try await startAndMount(texts: ["full/keep.txt": "stay\n"])
        try fail(["rmdir", mount.path("full")], with: "Directory not empty")
        XCTAssertNotNil(try api.entry(at: "full/keep.txt"), "nothing was removed on Box")

        try succeed(["rm", mount.path("full/keep.txt")])
        try succeed(["rmdir", mount.path("full")])
        XCTAssertNil(try api.entry(at: "full"), "gone from Box when rmdir returns")
        XCTAssertEqual(try succeed(["ls", "-A", mount.mountpoint.path]), "")
    }

    func testUnlinkRemovesTheFileOnBoxBeforeItReturns() async throws {
        let mount = try await startAndMount(texts: ["a.txt": "a\n", "b.txt": "b\n"])
        try succeed(["rm", mount.path("a.txt")])
        XCTAssertEqual(try boxNames(in: ""), ["b.txt"])
        try fail(["cat", mount.path("a.txt")], with: "No such file or directory")
    }

    func testRenamesWithinAndAcrossFoldersKeepBoxIds() async throws {
        let mount = try await startAndMount(texts: ["a/x.txt": "x content\n", "b/.keep": ""])
        let api = try self.api
        let file = try XCTUnwrap(try api.entry(at: "a/x.txt"))
        let folder = try XCTUnwrap(try api.entry(at: "a"))

        try succeed(["mv", mount.path("a/x.txt"), mount.path("a/y.txt")])
        XCTAssertEqual(try api.entry(at: "a/y.txt")?.id, file.id, "renamed in place")
        try succeed(["mv", mount.path("a/y.txt"), mount.path("b/y.txt")])
        XCTAssertEqual(try api.entry(at: "b/y.txt")?.id, file.id, "moved to another folder")
        XCTAssertEqual(try boxNames(in: "a"), [])
        try succeed(["mv", mount.path("a"), mount.path("b/renamed folder")])
        XCTAssertEqual(try api.entry(at: "b/renamed folder")?.id, folder.id, "folder moved and renamed")
        XCTAssertEqual(try boxNames(in: ""), ["b"])
        XCTAssertEqual(try api.text(of: file.id), "x content\n", "the content never moved")
        XCTAssertEqual(try succeed(["cat", mount.path("b/y.txt")]), "x content\n")
    }

    func testRenameOverAnExistingFileReplacesIt() async throws {
        let mount = try await startAndMount(texts: ["one.txt": "from one\n", "two.txt": "from two\n"])
        try succeed(["mv", "-f", mount.path("one.txt"), mount.path("two.txt")])
        XCTAssertEqual(try succeed(["cat", mount.path("two.txt")]), "from one\n")
        XCTAssertEqual(try succeed(["ls", mount.mountpoint.path]), "two.txt\n")

        try await waitForBox("two.txt", text: "from one\n")
        let api = try self.api
        try await Poll.until("one.txt to leave Box") { try api.entry(at: "one.txt") == nil ? true : nil }
        XCTAssertEqual(try boxNames(in: ""), ["two.txt"])
    }

    func testAFileNotYetUploadedFollowsItsRenameAndItsDeletion() async throws {
        let mount = try await startAndMount(texts: ["sub/.keep": ""], options: ["write_back_delay=2"])
        try write("moved before upload\n", to: mount.path("draft.txt"))
        try succeed(["mv", mount.path("draft.txt"), mount.path("sub/final.txt")])
        try write("short-lived\n", to: mount.path("scratch.txt"))
        try succeed(["rm", mount.path("scratch.txt")])
        try write("written last\n", to: mount.path("marker.txt"))

        try await waitForBox("sub/final.txt", text: "moved before upload\n")
        try await waitForBox("marker.txt", text: "written last\n")
        XCTAssertEqual(try boxNames(in: ""), ["marker.txt", "sub"], "neither draft.txt nor scratch.txt reached Box")
        XCTAssertEqual(try boxNames(in: "sub"), [".keep", "final.txt"])
    }

    func testRenamingAFolderWithAPendingFileDeliversItToTheNewPlace() async throws {
        let mount = try await startAndMount(texts: ["old/.keep": ""], options: ["write_back_delay=2"])
        try write("inside a folder being renamed\n", to: mount.path("old/inner.txt"))
        try succeed(["mv", mount.path("old"), mount.path("new")])
        try await waitForBox("new/inner.txt", text: "inside a folder being renamed\n")
        XCTAssertEqual(try boxNames(in: ""), ["new"])
    }
}
