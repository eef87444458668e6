import BoxTestSupport
import Foundation
import XCTest

/// Races in the write path that a review found: renames over files Box does not have yet, conflicts and saves
/// that meet an upload in flight, opens racing the end of an upload, writes to deleted files, times set right
/// after a close, rewrites during a chunked upload. boxsim's fault rules (latency per endpoint) hold uploads
/// on the wire so each window is wide open, without sleeps. (More in `WriteRaceTests+Uploads.swift`.)
final class WriteRaceTests: WriteTestCase {
    /// Defect: renaming over a file Box did not have yet aimed the upload at its local id (`local-N`): parked.
    func testANewFileRenamedOverAnotherNewFileGoesUpOnceUnderItsName() async throws {
        // Both files are only local when the rename happens (the upload waits 5 s).
        let mount = try await startAndMount(options: ["write_back_delay=5"])
        let script = "cd \"$DIR\" && echo a > f && echo b > f.tmp && mv f.tmp f"
        let result = try Shell.bash(script, environment: ["DIR": mount.mountpoint.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try succeed(["cat", mount.path("f")]), "b\n")
        XCTAssertEqual(uploads(try statusJSON(mount)).map { $0["name"] as? String }, ["f"], "one upload waits, for f")

        try await waitForBox("f", text: "b\n")
        let status = try await waitUntilSettled(mount)
        XCTAssertTrue(recentErrors(status).isEmpty, "\(status)")
        let log = try requests()
        XCTAssertTrue(log.filter { $0.path.contains("local-") }.isEmpty, "a local id reached Box\n\(log.summary)")
        XCTAssertEqual(log.matching("POST", UploadPaths.newFile).count, 1, "f went up once\n\(log.summary)")
        XCTAssertEqual(try boxNames(in: ""), ["f"])
    }

    /// The same defect as git meets it (lock files renamed over new files), end to end through a remount.
    func testAGitRepositoryMadeInTheMountReachesBoxAndWorksAfterARemount() async throws {
        guard try Shell.run(["git", "--version"]).succeeded else { throw XCTSkip("git is not installed") }
        let mount = try await startAndMount(options: ["write_back_delay=1"])
        let home = try makeTemporaryDirectory("git-home")
        let git = ["HOME": home.path, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "Tester",
                   "GIT_AUTHOR_EMAIL": "tester@example.com", "GIT_COMMITTER_NAME": "Tester",
                   "GIT_COMMITTER_EMAIL": "tester@example.com", "REPO": mount.path("repo")]
        // Git writes lock files and renames them over their targets (index, HEAD, refs), often before any upload.
        let script = """
            set -e
            mkdir "$REPO" && cd "$REPO" && git init -q -b main .
            printf 'hello\\n' > a.txt && mkdir src && printf 'int main(void) { return 0; }\\n' > src/main.c
            seq 1 20000 > numbers.txt
            git add -A && git commit -q -m first
            printf 'hello again\\n' >> a.txt && git rm -q numbers.txt && git commit -q -am second
            """
        let made = try Shell.bash(script, environment: git)
        XCTAssertEqual(made.status, 0, made.stderr)

        let status = try await waitUntilSettled(mount, timeout: 120)
        XCTAssertTrue(recentErrors(status).isEmpty, "\(status)")
        let inMount = try TreeManifest.local(URL(fileURLWithPath: mount.path("repo")))
        XCTAssertEqual(try TreeManifest.box(try api, folder: "repo"), inMount, "Box holds the repository byte-exact")
        XCTAssertTrue(try requests().filter { $0.path.contains("local-") }.isEmpty, "no local id reached Box")

        try await unmountAndWait(mount)
        let again = try mountWritable()
        let remounted = URL(fileURLWithPath: again.path("repo"))
        XCTAssertEqual(try TreeManifest.local(remounted), inMount, "the remount reads every file back byte-exact")
        let inRepo = git.merging(["REPO": remounted.path]) { _, new in new }
        let log = try Shell.bash("cd \"$REPO\" && git log --format=%s", environment: inRepo)
        XCTAssertEqual(log.stdout, "second\nfirst\n", log.stderr)
        let clean = try Shell.bash("cd \"$REPO\" && git status --porcelain && git fsck --full", environment: inRepo)
        XCTAssertEqual(clean.status, 0, clean.stderr)
        XCTAssertEqual(clean.stdout, "", "a clean work tree")
    }

    /// Defect: a conflicted copy went up while the file was open and counted as final: later writes were lost.
    func testAConflictFoundWhileAWriterHoldsTheFileOpenLosesNoLaterWrite() async throws {
        let mount = try await startAndMount(texts: ["P.txt": "base\n"])
        let api = try self.api
        let original = try XCTUnwrap(try api.entry(at: "P.txt"))
        // Box holds the next upload of P.txt for two seconds, and the upload of a conflicted copy too.
        let held = try api.addFault(["path_prefix": UploadPaths.newVersion(original.id), "method": "POST",
                                     "latency_ms": 2000, "count": 1])
        let copyHeld = try api.addFault(["path_prefix": UploadPaths.newFile, "method": "POST", "latency_ms": 2000,
                                         "count": 1])
        try append("first\n", to: mount.path("P.txt"))
        try await waitUntilUsed(fault: held)
        // A writer opens the file while that upload is held, and someone changes P.txt on the web meanwhile...
        let writer = try HeldFile(mount.path("P.txt"), flags: O_WRONLY | O_APPEND)
        try api.uploadVersion(of: original.id, data: Data("changed on the web\n".utf8))
        // ...so the held upload meets Box's new version (412) while the file is still open.
        try await waitForAnswers("POST", UploadPaths.newVersion(original.id), status: 412)
        // The content now goes to a conflicted copy. The writer goes on writing once the copy waits for its close,
        // or, had its upload started at once, while Box holds that upload: writes must not end up behind it.
        try await Poll.until("the conflict to be handled", timeout: 30, interval: 0.02) {
            let waits = self.uploads(try self.statusJSON(mount)).contains {
                ($0["name"] as? String ?? "").hasPrefix("P (conflict ") && $0["state"] as? String == "writing"
            }
            return try waits || !self.faultIsPending(copyHeld) ? true : nil
        }
        try writer.write("second\n")
        try writer.write("third\n")
        try writer.close()

        let wanted = try sha1(of: "base\nfirst\nsecond\nthird\n")
        let copy = try await Poll.until("a conflicted copy of P.txt holding every byte written", timeout: 60) {
            try api.items(in: "0").first { $0.name.hasPrefix("P (conflict ") && $0.sha1 == wanted }
        }
        try await waitUntilSettled(mount)
        XCTAssertEqual(try api.text(of: original.id), "changed on the web\n", "Box's version is kept")
        XCTAssertEqual(try boxNames(in: ""), [copy.name, "P.txt"].sorted())
    }

    /// Defect: replacing a file did not wait for its running upload, which then landed unseen: conflict (or trash).
    func testAnEditorSaveWhileThePreviousSaveIsUploadingBecomesTheNextVersion() async throws {
        let mount = try await startAndMount(texts: ["G.txt": "v1\n"], options: ["write_back_delay=3"])
        let api = try self.api
        let original = try XCTUnwrap(try api.entry(at: "G.txt"))
        // Box takes a second over the upload of v2: it is stored there while the mount still waits for the answer.
        let held = try api.addFault(["path_prefix": UploadPaths.newVersion(original.id), "method": "POST",
                                     "latency_ms": 1000, "count": 1])
        try write("v2\n", to: mount.path("G.txt"))
        try await waitUntilUsed(fault: held)  // the upload of v2 has reached Box

        let save = "printf 'v3\\n' > \"$DIR/.G.txt.swp\" && mv -f \"$DIR/.G.txt.swp\" \"$DIR/G.txt\""
        let saved = try Shell.bash(save, environment: ["DIR": mount.mountpoint.path])
        XCTAssertEqual(saved.status, 0, saved.stderr)
        XCTAssertEqual(try succeed(["cat", mount.path("G.txt")]), "v3\n")

        try await Poll.until("the save to be uploaded", timeout: 60) {
            try self.requests().matching("POST", UploadPaths.newVersion(original.id)).count >= 2 ? true : nil
        }
        try await waitUntilSettled(mount)
        let log = try requests()
        let now = try api.file(original.id)
        XCTAssertEqual(try api.text(of: original.id), "v3\n", "Box's G.txt holds the last save\n\(log.summary)")
        XCTAssertEqual(try api.entry(at: "G.txt")?.id, original.id, "the same Box file, not trashed")
        XCTAssertEqual(try boxNames(in: ""), ["G.txt"], "no conflicted copy, no temp file")
        XCTAssertTrue(log.matching("DELETE", "/2.0/files/\(original.id)").isEmpty, "G.txt is never deleted")
        XCTAssertNotEqual(now.versionID, original.versionID)
    }
}
