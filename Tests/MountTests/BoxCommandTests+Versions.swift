import BoxTestSupport
import Foundation
import XCTest

/// `boxfs versions` and `boxfs restore` (docs/SEMANTICS.md "Box commands").
final class BoxCommandVersionTests: BoxCommandTestCase {
    /// An editor's save: a temp file written beside the file, then renamed over it.
    func editorSave(_ text: String, to path: String) throws {
        let temp = (path as NSString).deletingLastPathComponent + "/.save.swp"
        let result = try Shell.bash("printf '%s' \"$T\" > \"$S\" && mv -f \"$S\" \"$F\"",
                                    environment: ["T": text, "S": temp, "F": path])
        XCTAssertEqual(result.status, 0, result.stderr)
    }

    func testThreeSavesGiveThreeEarlierVersionsAndARestoreShowsThatSaveAtOnce() async throws {
        let mount = try await startAndMount(texts: ["notes.txt": "save 0\n"], options: Self.quietOptions)
        for save in 1...3 {
            try editorSave("save \(save)\n", to: mount.path("notes.txt"))
            try await waitForBox("notes.txt", text: "save \(save)\n")
        }

        let listed = try boxfsSucceeds(["versions", mount.path("notes.txt")])

        let lines = listed.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        XCTAssertEqual(lines.map { $0.first ?? "" }, ["1", "2", "3"], listed)
        XCTAssertEqual(lines.map { $0.count }, [5, 5, 5], listed)
        XCTAssertEqual(lines.map { $0[4] }, try (0...2).map { try sha1(of: "save \($0)\n") })
        XCTAssertEqual(lines.map { $0[3] }, ["7", "7", "7"])
        let json = try jsonObject(try boxfsSucceeds(["versions", mount.path("notes.txt"), "--json"]))
        let versions = try XCTUnwrap(json["versions"] as? [[String: Any]])
        XCTAssertEqual(versions.compactMap { $0["number"] as? Int }, [1, 2, 3])
        XCTAssertNotNil(versions.first?["modified_at"] as? String)
        XCTAssertNotNil(versions.first?["modified_by"] as? String)

        // The current content is in the kernel's page cache; the restore must replace it before it returns.
        XCTAssertEqual(try succeed(["cat", mount.path("notes.txt")]), "save 3\n")
        XCTAssertEqual(try boxfsSucceeds(["restore", mount.path("notes.txt"), "--version", "2"]),
                       "\(mount.path("notes.txt")): version 2 restored\n")
        XCTAssertEqual(try succeed(["cat", mount.path("notes.txt")]), "save 1\n")
        XCTAssertEqual(try api.text(of: try XCTUnwrap(try api.entry(at: "notes.txt")).id), "save 1\n")

        // The restore is itself a version: version 4 is what was current before it, and it comes back too.
        let after = try boxfsSucceeds(["versions", mount.path("notes.txt")]).split(separator: "\n")
        XCTAssertEqual(after.count, 4, after.joined(separator: "\n"))
        try boxfsSucceeds(["restore", mount.path("notes.txt"), "--version", "1"])
        XCTAssertEqual(try succeed(["cat", mount.path("notes.txt")]), "save 0\n")
        XCTAssertEqual(try succeed(["stat", "-c", "%s", mount.path("notes.txt")]), "7\n")
    }

    func testARestoreOfAFileStillUploadingIsRefusedAndChangesNothing() async throws {
        let mount = try await startAndMount(texts: ["notes.txt": "save 0\n"],
                                            options: Self.quietOptions + ["write_back_delay=30", "upload_wait=0"])
        try write("written here\n", to: mount.path("notes.txt"))
        let before = try requests().count

        let line = try boxfsFails(["restore", mount.path("notes.txt"), "--version", "1"])

        XCTAssertTrue(line.contains("has changes written here that are not on Box yet"), line)
        XCTAssertEqual(try requests().dropFirst(before).filter { $0.method == "POST" }.map(\.path), [])
        XCTAssertEqual(try succeed(["cat", mount.path("notes.txt")]), "written here\n")
    }

    /// A file written here, uploaded, and still held open keeps its local copy: a restore under it would leave
    /// the mount showing that copy, and its next write would meet the restored version as a conflicted copy.
    func testARestoreOfAFileHeldOpenWithContentWrittenHereIsRefused() async throws {
        let mount = try await startAndMount(texts: ["notes.txt": "save 0\n"], options: Self.quietOptions)
        // Box holds the upload 5 s, so the open below comes before it lands however loaded the machine is.
        try api.addFault(["path_prefix": "/api/2.0/files/", "method": "POST", "latency_ms": 5000, "count": 1])
        try write("save 1\n", to: mount.path("notes.txt"))
        // Opened before the upload lands: it reads the local copy, which it keeps.
        let held = try HeldFile(mount.path("notes.txt"), flags: O_RDONLY)
        try await waitForBox("notes.txt", text: "save 1\n")
        try await Poll.until("the upload to settle", timeout: 30) {
            (try self.statusJSON(mount)["pending"] as? NSNumber)?.intValue == 0 ? true : nil
        }
        let before = try requests().count

        let line = try boxfsFails(["restore", mount.path("notes.txt"), "--version", "1"])

        XCTAssertTrue(line.contains("is open with content written here"), line)
        XCTAssertEqual(try requests().dropFirst(before).filter { $0.method == "POST" }.map(\.path), [])
        try held.close()
    }

    func testAVersionTheFileDoesNotHaveAndAFolderAreOneLine() async throws {
        let mount = try await startAndMount(texts: ["notes.txt": "save 0\n", "dir/a.txt": "a\n"], options: Self.quietOptions)
        try editorSave("save 1\n", to: mount.path("notes.txt"))
        try await waitForBox("notes.txt", text: "save 1\n")

        let missing = try boxfsFails(["restore", mount.path("notes.txt"), "--version", "7"])
        XCTAssertEqual(missing, "boxfs restore: notes.txt has no earlier version 7 (earlier versions: 1)\n")
        let folder = try boxfsFails(["versions", mount.path("dir")])
        XCTAssertEqual(folder, "boxfs versions: dir: folders have no versions\n")
        XCTAssertEqual(try boxfsSucceeds(["versions", mount.path("dir/a.txt")]), "\(mount.path("dir/a.txt")): no earlier versions\n")
    }
}
