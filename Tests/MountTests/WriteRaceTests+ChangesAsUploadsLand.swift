import BoxTestSupport
import Foundation
import XCTest

/// Changes made while an upload of the same file lands, or just after Box refused it: renames onto one name in a
/// row, a write after Box lost the file, a truncate by path.
extension WriteRaceTests {
    /// Defect (model seed 35064): a new file renamed over a Box file while its first upload was on the wire, then
    /// another Box file renamed over the same name before that upload answered. The upload landed as a new file under
    /// the first file's old name, and the second rename took that landed file (a leftover, removed at once) for the
    /// version to build on: its content, and an append after it, went to a deleted file, tried for ever, and the
    /// name showed an older version.
    func testTwoRenamesOntoOneNameWhileTheFirstsUploadIsOnTheWireKeepTheSecondsContent() async throws {
        let mount = try await startAndMount(texts: ["f1": "box one\n", "f0": "box zero\n"])
        let api = try self.api
        let f1 = try XCTUnwrap(try api.entry(at: "f1"))
        try await writeNewFile("three\n", to: "f3", in: mount, holdingItsUploadFor: 1500)
        try succeed(["mv", mount.path("f3"), mount.path("f1")])
        try succeed(["mv", mount.path("f0"), mount.path("f1")])
        try append("more\n", to: mount.path("f1"))
        XCTAssertEqual(try succeed(["cat", mount.path("f1")]), "box zero\nmore\n")

        try await waitUntilSettled(mount)
        let log = try requests()
        XCTAssertEqual(try boxNames(in: ""), ["f1"], "no leftover, no conflicted copy\n\(log.summary)")
        XCTAssertEqual(try api.entry(at: "f1")?.id, f1.id, "the same Box file takes each save")
        XCTAssertEqual(try api.text(of: f1.id), "box zero\nmore\n", "Box's f1 holds the last rename and the append")
        XCTAssertEqual(try succeed(["cat", mount.path("f1")]), "box zero\nmore\n")
    }
}

extension WriteRaceTests {
    /// A file written here and deleted on Box before its upload comes back as a new file at its name, and stays the
    /// file the mount shows: later writes go to that new Box file (what the upload of a version of a file removed
    /// here as a leftover, with no retarget coming, also falls back to).
    func testAFileDeletedOnBoxBeforeItsUploadComesBackAndTakesLaterWrites() async throws {
        let mount = try await startAndMount(texts: ["e": "v1\n"], options: ["write_back_delay=2"])
        let api = try self.api
        let original = try XCTUnwrap(try api.entry(at: "e"))
        try write("v2\n", to: mount.path("e"))
        try api.deleteFile(original.id)
        try await waitForAnswers("POST", UploadPaths.newVersion(original.id), status: 404)
        try await waitUntilSettled(mount)
        let back = try await waitForBox("e", text: "v2\n", timeout: 10)
        XCTAssertNotEqual(back.id, original.id)
        XCTAssertEqual(try succeed(["cat", mount.path("e")]), "v2\n")

        try append("v3\n", to: mount.path("e"))
        try await waitUntilSettled(mount)
        try await waitForBox("e", text: "v2\nv3\n", timeout: 10)
        XCTAssertEqual(try boxNames(in: ""), ["e"], "no conflicted copy")
        XCTAssertEqual(try api.entry(at: "e")?.id, back.id, "the file that came back takes the append")
        XCTAssertEqual(try succeed(["cat", mount.path("e")]), "v2\nv3\n")
    }
}

extension WriteRaceTests {
    /// Defect (model seed 36075): a truncate by path took the file's local copy, and that copy's upload landed and
    /// dropped it (nobody had it open) before the truncate changed it: `EBADF`. Here the growing truncate's look at
    /// the account's quota is held by Box while the shrinking truncate's upload lands.
    func testATruncateByPathWhileTheFilesUploadLandsChangesTheFile() async throws {
        let mount = try await startAndMount(texts: ["t": "start\n"], options: ["write_back_delay=1"])
        let api = try self.api
        let file = try XCTUnwrap(try api.entry(at: "t"))
        try await Task.sleep(for: .seconds(11))  // the quota known since the mount is older than its 10 s
        // truncate(2) by path, as the model does (GNU truncate opens the file and uses ftruncate).
        let truncate = ["perl", "-e", "truncate($ARGV[0], $ARGV[1]) or die \"truncate: $!\\n\""]
        try succeed(truncate + [mount.path("t"), "3"])
        let quota = try api.addFault(["path_prefix": "/2.0/users/me", "method": "GET", "latency_ms": 2500, "count": 1])
        let grown = try Shell.run(truncate + [mount.path("t"), "100"])
        XCTAssertEqual(grown.status, 0, grown.stderr)
        try await waitUntilUsed(fault: quota)
        let log = try requests()
        XCTAssertGreaterThanOrEqual(log.matching("POST", UploadPaths.newVersion(file.id)).succeeded.count, 1,
                                    "the first truncate's upload landed while the second waited\n\(log.summary)")
        try await waitUntilSettled(mount)
        let expected = "(printf sta; head -c 97 /dev/zero)"
        let sha1 = try Shell.bash("\(expected) | sha1sum").stdout.prefix(40)
        try await waitForBox("t", sha1: String(sha1))
        let same = try Shell.bash("\(expected) | cmp - \"$F\"", environment: ["F": mount.path("t")])
        XCTAssertEqual(same.status, 0, same.stdout + same.stderr)
    }
}
