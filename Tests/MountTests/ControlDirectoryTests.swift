import BoxTestSupport
import Foundation
import XCTest

/// The control directory (`.box`): reached by name, never listed, read-only; `versions/` shows a file's earlier
/// versions with their bytes, `trash/` what `rm` sent to Box's trash at its old path, `search/QUERY/` Box's
/// search results at their paths (docs/BOX-FEATURES.md).
final class ControlDirectoryTests: WriteTestCase {
    /// An editor's save: a temp file beside the target renamed over it.
    private func editorSave(_ text: String, to path: String) throws {
        let script = "printf '%s' \"$TEXT\" > \"$DEST.swp\" && mv -f \"$DEST.swp\" \"$DEST\""
        let result = try Shell.bash(script, environment: ["TEXT": text, "DEST": path])
        XCTAssertEqual(result.status, 0, "editor save: \(result.stderr)")
    }

    /// Requests for what only the control directory asks Box for (versions, the trash, search).
    private func controlRequests(after sequence: Int) throws -> [LoggedRequest] {
        try requests().after(sequence).filter {
            $0.path.hasSuffix("/versions") || $0.path.contains("/versions/") || $0.path == "/2.0/folders/trash/items"
                || $0.path == "/2.0/search" || $0.path.hasSuffix("/trash")
        }
    }

    func testEarlierVersionsAreListedByTimeAndWhoAndReadLikeFiles() async throws {
        let mount = try await startAndMount(texts: ["notes/doc.txt": "the original\n"])
        let doc = mount.path("notes/doc.txt")
        let saves = ["first save, by an editor\n", "second save, written in place\n", "third\n"]
        try editorSave(saves[0], to: doc)
        try await waitForBox("notes/doc.txt", text: saves[0])
        try write(saves[1], to: doc)  // O_TRUNC and write: an in-place save
        try await waitForBox("notes/doc.txt", text: saves[1])
        try editorSave(saves[2], to: doc)
        try await waitForBox("notes/doc.txt", text: saves[2])

        let folder = mount.path(".box/versions/notes/doc.txt")
        let names = try succeed(["ls", folder]).split(separator: "\n").map(String.init)
        XCTAssertEqual(names.count, 3, "three earlier versions: \(names)")
        let login = try XCTUnwrap(try api.call("GET", "/2.0/users/me")["login"] as? String)
        let pattern = try NSRegularExpression(pattern: #"^\d{4}-\d{2}-\d{2}T\d{2}\.\d{2}\.\d{2}Z \S+( \(\d+\))?$"#)
        for name in names {
            XCTAssertNotNil(pattern.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)), name)
            XCTAssertTrue(name.contains(login), "\(name) names who saved it (\(login))")
        }
        let contents = try names.map { try succeed(["cat", folder + "/" + $0]) }
        XCTAssertEqual(contents, ["the original\n", saves[0], saves[1]], "oldest first, each save's bytes")
        XCTAssertEqual(try succeed(["cat", doc]), saves[2])
        XCTAssertEqual(try succeed(["stat", "-c", "%s %a %F", folder + "/" + names[1]]),
                       "\(saves[0].utf8.count) 444 regular file\n")
        let copy = try makeTemporaryDirectory().appendingPathComponent("copy.txt").path
        try succeed(["cp", folder + "/" + names[0], copy])
        try succeed(["diff", copy, folder + "/" + names[0]])

        // A version's bytes never change: read again, they come from the cache.
        let before = try lastSequence(try XCTUnwrap(boxsim))
        try Shell.run(["sh", "-c", "echo 3 > /proc/sys/vm/drop_caches"])
        XCTAssertEqual(try names.map { try succeed(["cat", folder + "/" + $0]) }, contents)
        let fetched = try requests().after(before).filter { $0.path.contains("/content") || $0.path.hasPrefix("/dl/") }
        XCTAssertEqual(fetched.map(\.path), [], "cached under each version's key")

        // Read-only, every way.
        let version = folder + "/" + names[0]
        try fail(["sh", "-c", "echo x >> \"$0\"", version], with: "Read-only file system")
        try fail(["rm", "-f", version], with: "Read-only file system")
        try fail(["touch", folder + "/new"], with: "Read-only file system")
        try fail(["mkdir", mount.path(".box/versions/new")], with: "Read-only file system")
        try fail(["mv", version, folder + "/renamed"], with: "Read-only file system")
        try fail(["rm", "-rf", mount.path(".box")], with: "Read-only file system")
        try fail(["chmod", "600", version], with: "Read-only file system")
        XCTAssertEqual(try succeed(["cat", version]), "the original\n")
    }

    func testTheTrashShowsARemovedFolderAtItsOriginalPath() async throws {
        let mount = try await startAndMount(texts: [
            "projects/alpha/plan.txt": "the plan\n", "projects/alpha/notes/n1.txt": "note one\n",
            "projects/keep.txt": "kept\n",
        ])
        XCTAssertEqual(try succeed(["ls", "-A", mount.path(".box/trash")]), "", "nothing deleted yet")
        try succeed(["rm", "-r", mount.path("projects/alpha")])

        let trash = mount.path(".box/trash")
        let found = try succeed(["find", trash, "-mindepth", "1"]).split(separator: "\n").map {
            String($0.dropFirst(trash.count + 1))
        }.sorted()
        XCTAssertEqual(found, ["projects", "projects/alpha", "projects/alpha/notes", "projects/alpha/notes/n1.txt",
                               "projects/alpha/plan.txt"])
        XCTAssertEqual(try succeed(["stat", "-c", "%s %a", trash + "/projects/alpha/plan.txt"]), "9 0\n",
                       "its size; no permission bits: Box does not serve a trashed file's content")
        XCTAssertEqual(try succeed(["ls", mount.path("projects")]), "keep.txt\n")
        try fail(["cat", trash + "/projects/alpha/plan.txt"], with: "Permission denied")
        try fail(["rm", "-r", trash + "/projects"], with: "Read-only file system")
    }

    func testSearchFindsFilesByContentAndByNameAtTheirPaths() async throws {
        let mount = try await startAndMount(texts: [
            "docs/report.txt": "the quarterly zebra count\n", "docs/deeper/zebra-notes.md": "nothing here\n",
            "other/report.txt": "a zebra elsewhere\n", "other/horses.txt": "no stripes\n",
        ])
        XCTAssertEqual(try succeed(["ls", "-A", mount.path(".box/search")]), "", "past searches are not listed")
        let results = mount.path(".box/search/zebra")
        let found = try succeed(["find", results, "-type", "f"]).split(separator: "\n").map {
            String($0.dropFirst(results.count + 1))
        }.sorted()
        XCTAssertEqual(found, ["docs/deeper/zebra-notes.md", "docs/report.txt", "other/report.txt"],
                       "by content and by name; two report.txt apart by their folders")
        XCTAssertEqual(try succeed(["cat", results + "/other/report.txt"]), "a zebra elsewhere\n")
        XCTAssertEqual(try succeed(["cat", results + "/docs/report.txt"]), "the quarterly zebra count\n")
        let phrase = mount.path(".box/search/quarterly count")
        XCTAssertEqual(try succeed(["ls", phrase + "/docs"]), "report.txt\n")
        XCTAssertEqual(try succeed(["ls", "-A", mount.path(".box/search/unicorn")]), "", "no results: an empty folder")
        let searches = try requests().filter { $0.path == "/2.0/search" }
        XCTAssertEqual(searches.count, 3, "one search per query, then cached:\n\(searches.map { $0.query ?? "" })")
    }

    func testWalkersNeverEnterTheControlDirectory() async throws {
        let mount = try await startAndMount(texts: ["a.txt": "alpha\n", "dir/b.txt": "beta alpha\n"])
        let mnt = mount.mountpoint.path
        let sim = try XCTUnwrap(boxsim)
        try succeed(["cat", mount.path("a.txt")])
        let before = try lastSequence(sim)
        let copy = try makeTemporaryDirectory("rsync-copy").path
        let walks = [
            ["find", mnt], ["du", "-s", mnt], ["rsync", "-a", mnt + "/", copy], ["grep", "-r", "alpha", mnt],
            ["ls", "-aR", mnt], ["tar", "-cf", "/dev/null", "-C", mnt, "."],
        ]
        for walk in walks {
            let output = try succeed(walk)
            XCTAssertFalse(output.contains(".box"), "\(walk.joined(separator: " ")) went into the control directory")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: copy + "/.box"))
        XCTAssertEqual(try controlRequests(after: before).map(\.path), [], "nothing fetched for the control directory")
        // Yet it is there, by name.
        XCTAssertEqual(try succeed(["ls", mount.path(".box")]), "search\ntrash\nversions\n")
        XCTAssertEqual(try succeed(["stat", "-c", "%a %F", mount.path(".box")]), "555 directory\n")
        try fail(["mv", mount.path("a.txt"), mount.path(".box")], with: "Read-only file system")
        try fail(["mv", "-T", mount.path("dir"), mount.path(".box")], with: "Read-only file system")
        try fail(["mkdir", mount.path(".box")], with: "File exists")
        XCTAssertEqual(try succeed(["ls", mount.mountpoint.path]), "a.txt\ndir\n", "nothing moved")
    }

    func testARealRootItemWithTheNameWinsAndTheLogSaysHowToReachTheControlDirectory() async throws {
        let mount = try await startAndMount(texts: [".box/mine.txt": "my own\n", "x.txt": "x\n"])
        XCTAssertEqual(try succeed(["ls", "-A", mount.mountpoint.path]), ".box\nx.txt\n")
        XCTAssertEqual(try succeed(["ls", mount.path(".box")]), "mine.txt\n")
        XCTAssertEqual(try succeed(["cat", mount.path(".box/mine.txt")]), "my own\n")
        try await Poll.until("the log to name control_dir", timeout: 10) {
            let log = try self.daemonLogs.map { try String(contentsOf: $0, encoding: .utf8) }.joined()
            return log.contains("control_dir=") ? true : nil
        }
        let log = try daemonLogs.map { try String(contentsOf: $0, encoding: .utf8) }.joined()
        XCTAssertEqual(log.components(separatedBy: "control_dir=NAME").count - 1, 1, "said once:\n\(log)")
        let other = try mountWithFreshCache(options: ["control_dir=.boxctl"])
        XCTAssertEqual(try succeed(["ls", other.path(".boxctl")]), "search\ntrash\nversions\n")
        XCTAssertEqual(try succeed(["ls", other.path(".box")]), "mine.txt\n")
        XCTAssertEqual(try succeed(["ls", "-A", other.mountpoint.path]), ".box\nx.txt\n")
    }

    func testFaultsWhileListingAreRetriedAndAPersistentOneIsAnErrorNotAHang() async throws {
        let mount = try await startAndMount(texts: ["f.txt": "zebra one\n"])
        let api = try self.api
        try api.uploadVersion(of: try XCTUnwrap(try api.entry(at: "f.txt")).id, data: Data("zebra two\n".utf8))
        try api.rateLimit(pathPrefix: "/2.0/search", retryAfter: 1, count: 1)
        try api.cutConnections(pathPrefix: "/2.0/files/", method: "GET", phase: .responseBody, count: 1)
        try api.addFault(["path_prefix": "/2.0/folders/trash", "error_status": 503, "error_rate": 1, "count": 1])
        XCTAssertEqual(try succeed(["ls", mount.path(".box/search/zebra")]), "f.txt\n")
        XCTAssertEqual(try succeed(["ls", mount.path(".box/versions/f.txt")]).split(separator: "\n").count, 1)
        XCTAssertEqual(try succeed(["ls", "-A", mount.path(".box/trash")]), "")

        try api.addFault(["path_prefix": "/2.0/search", "error_status": 500, "error_rate": 1])
        let started = Date()
        try fail(["ls", mount.path(".box/search/stripes")], with: "Input/output error")
        XCTAssertLessThan(Date().timeIntervalSince(started), 120, "an error, not a hang")
        try api.clearFaults()
        XCTAssertEqual(try succeed(["ls", "-A", mount.path(".box/search/stripes")]), "", "a failure is not cached")
    }
}
