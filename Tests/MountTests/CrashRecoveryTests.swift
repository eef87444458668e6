import BoxTestSupport
import Foundation
import XCTest

/// `kill -9` of the daemon at any point loses nothing: the next mount with the same cache folder finds the
/// journal and finishes every pending upload byte-exact, resuming a chunked session without resending parts.
final class CrashRecoveryTests: WriteTestCase {
    /// Writes `count` small files into `folder` with a shell loop; answers the same files written locally.
    func writeBurst(count: Int, into folder: String) throws -> URL {
        let local = try makeTemporaryDirectory("burst")
        let loop = "mkdir -p \"$DIR\" && for i in $(seq 1 \(count)); do "
            + "printf 'small file %s, written in a burst\\n%0*d' $i $i 0 > \"$DIR/f$i.txt\"; done"
        for directory in [local.path, folder] {
            let result = try Shell.bash(loop, environment: ["DIR": directory])
            XCTAssertEqual(result.status, 0, result.stderr)
        }
        return local
    }

    func testKillDuringABurstOfSmallWritesThenRemountUploadsEverything() async throws {
        let mount = try await startAndMount(texts: ["keep/one.txt": "old one\n", "keep/two.txt": "old two\n"],
                                            options: ["write_back_delay=60"])
        let api = try self.api
        let ids = try ["one.txt", "two.txt"].map { try XCTUnwrap(try api.entry(at: "keep/\($0)")).id }
        let before = try lastSequence(try XCTUnwrap(boxsim))
        let local = try writeBurst(count: 40, into: mount.path("burst"))
        try write("new one\n", to: mount.path("keep/one.txt"))
        try write("new two\n", to: mount.path("keep/two.txt"))
        let uploads = try requests().after(before).matching("POST", "/api/2.0/files/([0-9]+/)?content")
        XCTAssertTrue(uploads.isEmpty, "nothing was uploaded before the kill: \(uploads.summary)")

        try await crash(mount)
        try mountWritable()
        let expected = try TreeManifest.local(local)
        try await Poll.until("Box to hold the whole burst", timeout: 90) {
            try TreeManifest.box(api, folder: "burst") == expected ? true : nil
        }
        try await waitForBox("keep/one.txt", text: "new one\n")
        try await waitForBox("keep/two.txt", text: "new two\n")
        XCTAssertEqual(try ["one.txt", "two.txt"].map { try XCTUnwrap(try api.entry(at: "keep/\($0)")).id }, ids,
                       "new versions of the same files")
        XCTAssertEqual(try boxNames(in: "keep"), ["one.txt", "two.txt"])
    }

    /// Creates from parallel writers share journal commits: every file whose write returned is journaled,
    /// so a kill right after the writers end loses none of them.
    func testKillRightAfterParallelWritersOfNewFilesLosesNothing() async throws {
        let mount = try await startAndMount(options: ["write_back_delay=60"])
        let api = try self.api
        let local = try makeTemporaryDirectory("parallel")
        // Each writer stops at its first failure, and the script fails if any writer did.
        let writers = (0..<8).map { writer in
            "(for i in $(seq 1 25); do printf 'writer \(writer) file %s\\n%0*d' $i $i 0 > \"$DIR/w\(writer)-$i.txt\" || exit 1; done) & "
                + "pids=\"$pids $!\"; "
        }
        let script = "mkdir -p \"$DIR\" || exit 1; pids=; " + writers.joined() + "for p in $pids; do wait $p || exit 1; done"
        for directory in [local.path, mount.path("parallel")] {
            let result = try Shell.bash(script, environment: ["DIR": directory])
            XCTAssertEqual(result.status, 0, result.stderr)
        }
        try await crash(mount)
        try mountWritable()
        let expected = try TreeManifest.local(local)
        XCTAssertEqual(expected.count, 200)
        try await Poll.until("Box to hold every file of every writer", timeout: 90) {
            try TreeManifest.box(api, folder: "parallel") == expected ? true : nil
        }
    }

    func testKillWhileSmallUploadsAreInFlightLosesAndDuplicatesNothing() async throws {
        let mount = try await startAndMount()
        let api = try self.api
        try api.addFault(["path_prefix": UploadPaths.newFile, "method": "POST", "latency_ms": 1500])
        let local = try writeBurst(count: 12, into: mount.path("burst"))
        let sim = try XCTUnwrap(boxsim)
        try await Poll.until("the first uploads to finish", timeout: 60) {
            try sim.requestLog().matching("POST", UploadPaths.newFile).succeeded.isEmpty ? nil : true
        }

        try await crash(mount)
        try api.clearFaults()
        try mountWritable()
        let expected = try TreeManifest.local(local)
        try await Poll.until("Box to hold every file once", timeout: 90) {
            try TreeManifest.box(api, folder: "burst") == expected ? true : nil
        }
    }

    func testKillInTheMiddleOfALargeUploadResumesTheSessionWithoutResendingParts() async throws {
        let mount = try await startAndMount()
        let api = try self.api
        let sim = try XCTUnwrap(boxsim)
        // Parts take two seconds each, so the upload is slow enough to be killed half-way.
        try api.addFault(["path_prefix": "/api/2.0/files/upload_sessions/", "method": "PUT", "latency_ms": 2000])
        let local = try localFile(size: 100 << 20, seed: 41)
        try succeed(["cp", local.path, mount.path("huge.bin")])
        let storedBeforeKill = try await Poll.until("some parts to be stored", timeout: 120) {
            let parts = try sim.requestLog().matching("PUT", UploadPaths.part()).succeeded
            return parts.count >= 2 ? parts : nil
        }
        try await crash(mount)
        let killedAt = try lastSequence(sim)
        let session = try XCTUnwrap(UploadPaths.sessionID(in: storedBeforeKill[0].path))
        let totalParts = try XCTUnwrap((try api.uploadSession(session)["total_parts"] as? NSNumber)?.intValue)
        let storedAtKill = try requests().matching("PUT", UploadPaths.part(session)).succeeded.count
        XCTAssertLessThan(storedAtKill, totalParts, "the kill came before the last part")

        try api.clearFaults()
        try mountWritable()
        let entry = try await waitForBox("huge.bin", sha1: try sha1(local.path), timeout: 180)
        XCTAssertEqual(entry.size, 100 << 20)
        // boxsim logs a request once its answer is sent, which can trail the file becoming visible.
        let log = try await Poll.until("the commit to be logged", timeout: 30) {
            let log = try self.requests()
            return log.matching("POST", UploadPaths.commit(session)).contains { $0.status == 201 } ? log : nil
        }
        XCTAssertEqual(log.matching("POST", UploadPaths.sessionCreate).succeeded.count, 1,
                       "the session was resumed, not started again\n\(log.after(killedAt).summary)")
        XCTAssertEqual(log.matching("PUT", UploadPaths.part(session)).succeeded.count, totalParts,
                       "every part stored exactly once: none Box already had was sent again\n\(log.summary)")
        XCTAssertFalse(log.after(killedAt).matching("PUT", UploadPaths.part(session)).isEmpty, "the rest came after")
        XCTAssertEqual(log.matching("POST", UploadPaths.commit(session)).filter { $0.status == 201 }.count, 1)
        XCTAssertEqual(try boxNames(in: ""), ["huge.bin"])
    }

    func testBytesFsyncedToAFileStillOpenSurviveAKill() async throws {
        let mount = try await startAndMount(options: ["write_back_delay=2"])
        let local = try localFile(size: 3 << 20, seed: 43)
        try succeed(["touch", mount.path("open.bin")])
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: mount.path("open.bin")))
        try handle.write(contentsOf: try Data(contentsOf: local))
        try handle.synchronize()

        try await crash(mount)  // the writer still holds the file open
        try? handle.close()
        try mountWritable()
        try await waitForBox("open.bin", sha1: try sha1(local.path))
    }

    func testAKillWhileAnEarlierVersionUploadsMakesNoConflictedCopy() async throws {
        // touch's empty file is on the wire (held by Box) when the file is opened again and written.
        let mount = try await startAndMount()
        let api = try self.api
        try api.addFault(["path_prefix": UploadPaths.newFile, "method": "POST", "latency_ms": 2000, "count": 1])
        try succeed(["touch", mount.path("open.bin")])
        try await waitUntilUploading("open.bin", in: mount)
        let local = try localFile(size: 1 << 20, seed: 44)
        try succeed(["cp", local.path, mount.path("open.bin")])

        try await crash(mount)
        let sim = try XCTUnwrap(boxsim)
        try await Poll.until("Box to answer the held upload") {
            try sim.requestLog().matching("POST", UploadPaths.newFile).isEmpty ? nil : true
        }
        try mountWritable()
        try await waitForBox("open.bin", sha1: try sha1(local.path))
        XCTAssertEqual(try boxNames(in: ""), ["open.bin"], "the empty first version was ours, no conflict")
    }
}
