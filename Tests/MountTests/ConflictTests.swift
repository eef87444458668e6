import BoxTestSupport
import Foundation
import XCTest

/// A file changed on Box while it was being edited through the mount: neither side is overwritten. Box keeps the
/// other client's version and the local content goes up beside it as `NAME (conflict YYYY-MM-DD HHMMSS).EXT`.
final class ConflictTests: WriteTestCase {
    static let conflictPattern = #"^doc \(conflict \d{4}-\d{2}-\d{2} \d{6}( \d+)?\)\.txt$"#

    /// Waits for the conflicted copy of `doc.txt` in the root folder; answers it.
    func waitForConflictedCopy() async throws -> BoxEntry {
        let api = try self.api
        let regex = try NSRegularExpression(pattern: Self.conflictPattern)
        return try await Poll.until("a conflicted copy of doc.txt on Box") {
            try api.items(in: "0").first { entry in
                regex.firstMatch(in: entry.name, range: NSRange(entry.name.startIndex..., in: entry.name)) != nil
            }
        }
    }

    func testARemoteChangeDuringALocalEditYieldsAConflictedCopyAndKeepsBoth() async throws {
        let logFile = try makeTemporaryDirectory("log").appendingPathComponent("boxfs.log")
        let mount = try await startAndMount(texts: ["doc.txt": "base\n"], options: ["log_file=\(logFile.path)"])
        let api = try self.api
        let original = try XCTUnwrap(try api.entry(at: "doc.txt"))

        // The editor opens the file (its copy is based on "base") and writes...
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: mount.path("doc.txt")))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data("local edit\n".utf8))
        // ...while someone changes the file on the web...
        try api.uploadVersion(of: original.id, data: Data("remote edit\n".utf8))
        // ...then the editor closes it.
        try handle.close()

        let copy = try await waitForConflictedCopy()
        XCTAssertEqual(try api.text(of: copy.id), "local edit\n", "the local content survives as the copy")
        XCTAssertEqual(try api.text(of: original.id), "remote edit\n", "Box's version is not overwritten")
        XCTAssertEqual(try api.entry(at: "doc.txt")?.id, original.id)
        let names = try boxNames(in: "")
        XCTAssertEqual(names.count, 2, "exactly the original and one copy: \(names)")

        try await Poll.until("the mount to list the conflicted copy", timeout: 90) {
            try Shell.run(["ls", mount.mountpoint.path]).stdout.contains(copy.name) ? true : nil
        }
        let logged = try await Poll.until("the conflict to be logged", timeout: 10) {
            (try? String(contentsOf: logFile, encoding: .utf8)).flatMap { $0.contains(copy.name) ? $0 : nil }
        }
        XCTAssertTrue(logged.contains("doc.txt"))
    }

    func testARemoteChangeWhileTheUploadWaitsYieldsAConflictedCopy() async throws {
        let mount = try await startAndMount(texts: ["doc.txt": "base\n"], options: ["write_back_delay=3"])
        let api = try self.api
        let original = try XCTUnwrap(try api.entry(at: "doc.txt"))
        try write("closed locally, not yet sent\n", to: mount.path("doc.txt"))
        try api.uploadVersion(of: original.id, data: Data("changed on the web meanwhile\n".utf8))

        let copy = try await waitForConflictedCopy()
        XCTAssertEqual(try api.text(of: copy.id), "closed locally, not yet sent\n")
        XCTAssertEqual(try api.text(of: original.id), "changed on the web meanwhile\n")
    }

    func testAfterAConflictTheMountShowsBoxsVersionAndTheCopy() async throws {
        let mount = try await startAndMount(texts: ["doc.txt": "base\n"],
                                            options: ["write_back_delay=2", "dir_cache_ttl=1", "attr_timeout=0.5",
                                                      "entry_timeout=0.5"])
        let api = try self.api
        let original = try XCTUnwrap(try api.entry(at: "doc.txt"))
        try write("mine\n", to: mount.path("doc.txt"))
        try api.uploadVersion(of: original.id, data: Data("theirs\n".utf8))
        let copy = try await waitForConflictedCopy()

        try await Poll.until("doc.txt in the mount to show Box's version") {
            try Shell.run(["cat", mount.path("doc.txt")]).stdout == "theirs\n" ? true : nil
        }
        XCTAssertEqual(try succeed(["cat", mount.path(copy.name)]), "mine\n")
    }

    func testAChangeOfMetadataOnlyIsNotAConflict() async throws {
        // Sharing the file elsewhere changes its etag but not its content: the edit is a plain new version.
        let mount = try await startAndMount(texts: ["doc.txt": "base\n"], options: ["write_back_delay=2"])
        let api = try self.api
        let original = try XCTUnwrap(try api.entry(at: "doc.txt"))
        try write("edited while someone shared it\n", to: mount.path("doc.txt"))
        let link = try api.shareLink(fileID: original.id)
        let saved = try await waitForBox("doc.txt", text: "edited while someone shared it\n")
        XCTAssertEqual(saved.id, original.id)
        XCTAssertEqual(try api.sharedLinkURL(fileID: original.id), link)
        try await unmountAndWait(mount)
        XCTAssertEqual(try boxNames(in: ""), ["doc.txt"], "no conflicted copy")
    }

    func testAnUnchangedFileIsNotAConflict() async throws {
        // The control case: with no change on Box, the same edit is a plain new version, no copy.
        let mount = try await startAndMount(texts: ["doc.txt": "base\n"])
        let original = try XCTUnwrap(try api.entry(at: "doc.txt"))
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: mount.path("doc.txt")))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data("local edit\n".utf8))
        try handle.close()
        let saved = try await waitForBox("doc.txt", text: "local edit\n")
        XCTAssertEqual(saved.id, original.id)
        XCTAssertEqual(try boxNames(in: ""), ["doc.txt"])
    }
}
