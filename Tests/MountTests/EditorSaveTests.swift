import BoxTestSupport
import Foundation
import XCTest

/// An editor's save (write a temp file, rename it over the original) gives the original Box file a new version:
/// same id, older versions and shared link kept, and the temp name never left on Box.
final class EditorSaveTests: WriteTestCase {
    /// The shell's version of an editor save: write a temp file beside the target, then `mv` it over.
    func editorSave(_ text: String, to path: String, temp: String = ".doc.txt.swp") throws {
        let directory = (path as NSString).deletingLastPathComponent
        let script = "printf '%s' \"$TEXT\" > \"$TEMP\" && mv -f \"$TEMP\" \"$DEST\""
        let result = try Shell.bash(script, environment: ["TEXT": text, "TEMP": directory + "/" + temp, "DEST": path])
        XCTAssertEqual(result.status, 0, "editor save: \(result.stderr)")
    }

    func testASaveKeepsTheFileIdItsOldVersionAndItsSharedLink() async throws {
        try await startBoxSim(texts: ["doc.txt": "first draft\n"])
        let api = try self.api
        let link = try api.shareLink(fileID: try XCTUnwrap(try api.entry(at: "doc.txt")).id)
        let original = try XCTUnwrap(try api.entry(at: "doc.txt"))
        let mount = try mountWritable(options: ["write_back_delay=2"])  // the default: the editor renames at once
        let before = try lastSequence(try XCTUnwrap(boxsim))

        try editorSave("second draft, saved by an editor\n", to: mount.path("doc.txt"))
        XCTAssertEqual(try succeed(["cat", mount.path("doc.txt")]), "second draft, saved by an editor\n")
        let saved = try await waitForBox("doc.txt", text: "second draft, saved by an editor\n")

        XCTAssertEqual(saved.id, original.id, "the same Box file, not a new one")
        XCTAssertNotEqual(saved.versionID, original.versionID)
        XCTAssertEqual(try api.text(of: original.id, version: original.versionID), "first draft\n",
                       "the previous version is still on Box")
        XCTAssertEqual(try api.sharedLinkURL(fileID: original.id), link)
        XCTAssertEqual(try boxNames(in: ""), ["doc.txt"], "the temp file is not left on Box")
        let log = try requests().after(before)
        XCTAssertEqual(log.matching("POST", UploadPaths.newVersion(original.id)).succeeded.count, 1, log.summary)
        XCTAssertTrue(log.matching("DELETE", "/2.0/files/\(original.id)").isEmpty, "the original is never deleted")
        XCTAssertTrue(log.matching("POST", UploadPaths.newFile).isEmpty, "no new Box file\n\(log.summary)")
    }

    func testASaveWhoseTempFileWasAlreadyUploadedStillKeepsTheId() async throws {
        // A slow editor: the temp file is closed long enough to reach Box before the rename.
        let mount = try await startAndMount(texts: ["doc.txt": "first draft\n"])
        let original = try XCTUnwrap(try api.entry(at: "doc.txt"))
        try write("saved slowly\n", to: mount.path("doc.txt.tmp"))
        try await waitForBox("doc.txt.tmp", text: "saved slowly\n")

        try succeed(["mv", "-f", mount.path("doc.txt.tmp"), mount.path("doc.txt")])
        let saved = try await waitForBox("doc.txt", text: "saved slowly\n")
        XCTAssertEqual(saved.id, original.id)
        let api = try self.api
        try await Poll.until("the temp file to leave Box") { try api.entry(at: "doc.txt.tmp") == nil ? true : nil }
        XCTAssertEqual(try boxNames(in: ""), ["doc.txt"])
    }

    func testRepeatedSavesAddVersionsToOneFile() async throws {
        let mount = try await startAndMount(texts: ["notes/doc.txt": "v0\n"])
        let original = try XCTUnwrap(try api.entry(at: "notes/doc.txt"))
        var versions = [original.versionID]
        for round in 1...3 {
            try editorSave("v\(round)\n", to: mount.path("notes/doc.txt"), temp: "doc.txt~\(round)")
            let saved = try await waitForBox("notes/doc.txt", text: "v\(round)\n")
            XCTAssertEqual(saved.id, original.id, "save \(round)")
            versions.append(saved.versionID)
        }
        XCTAssertEqual(Set(versions).count, 4, "four distinct versions: \(versions)")
        XCTAssertEqual(try boxNames(in: "notes"), ["doc.txt"])
    }

    func testASaveIntoAnotherFolderReplacesTheFileThere() async throws {
        // Some tools stage the new content in a temp folder of the same file system, then rename it across.
        let mount = try await startAndMount(texts: ["docs/doc.txt": "old\n", "tmp/.keep": ""])
        let original = try XCTUnwrap(try api.entry(at: "docs/doc.txt"))
        try write("staged elsewhere\n", to: mount.path("tmp/doc.txt.new"))
        try succeed(["mv", "-f", mount.path("tmp/doc.txt.new"), mount.path("docs/doc.txt")])

        let saved = try await waitForBox("docs/doc.txt", text: "staged elsewhere\n")
        XCTAssertEqual(saved.id, original.id)
        XCTAssertEqual(try boxNames(in: "tmp"), [".keep"])
        XCTAssertEqual(try boxNames(in: "docs"), ["doc.txt"])
    }
}
