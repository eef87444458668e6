import BoxTestSupport
import Foundation
import XCTest

/// Races of opens, deletes, time changes and rewrites with uploads that are finishing or in flight.
extension WriteRaceTests {
    /// Defect: an open racing the end of an upload used the finished journal entry and failed (EIO).
    func testAppendingRightAsAnUploadFinishesSucceedsAndKeepsEveryLine() async throws {
        let mount = try await startAndMount(texts: ["F.txt": "line 0\n"])
        let api = try self.api
        let target = try XCTUnwrap(try api.entry(at: "F.txt"))
        // R.txt lands under its old name after a local rename; Box then takes 6 s to rename it, which must not hold
        // up what the mount learns about other uploads meanwhile.
        try api.addFault(["path_prefix": UploadPaths.newFile, "method": "POST", "latency_ms": 700, "count": 1])
        try api.addFault(["path_prefix": "/2.0/files/", "method": "PUT", "latency_ms": 6000, "count": 1])
        try write("renamed during its upload\n", to: mount.path("R.txt"))
        try await waitUntilUploading("R.txt", in: mount)
        try succeed(["mv", mount.path("R.txt"), mount.path("R2.txt")])
        try await waitForAnswers("POST", UploadPaths.newFile, status: 201)

        try api.addFault(["path_prefix": UploadPaths.newVersion(target.id), "method": "POST", "latency_ms": 700])
        var expected = "line 0\n"
        for round in 1...4 {
            try append("line \(round)\n", to: mount.path("F.txt"))
            try await waitUntilUploading("F.txt", in: mount)
            // The moment Box has answered that upload, open the file again.
            try await waitForAnswers("POST", UploadPaths.newVersion(target.id), status: 200, count: 2 * round - 1)
            let more = try Shell.bash("echo \"more $ROUND\" >> \"$DEST\"",
                                      environment: ["ROUND": "\(round)", "DEST": mount.path("F.txt")])
            guard more.status == 0 else { return XCTFail("round \(round): echo >> F.txt failed: \(more.stderr)") }
            expected += "line \(round)\nmore \(round)\n"
            try await waitForAnswers("POST", UploadPaths.newVersion(target.id), status: 200, count: 2 * round)
            try await waitUntilSettled(mount)
        }
        XCTAssertEqual(try succeed(["cat", mount.path("F.txt")]), expected)
        let saved = try await waitForBox("F.txt", text: expected)
        XCTAssertEqual(saved.id, target.id)
        try await waitForBox("R2.txt", text: "renamed during its upload\n")
        XCTAssertEqual(try boxNames(in: ""), ["F.txt", "R2.txt"])
    }

    /// Defect: writes after an unlink journaled the deleted file again, so it went up (or was parked) at close.
    func testWritesToANewFileDeletedWhileOpenNeverReachBox() async throws {
        let mount = try await startAndMount()
        let before = try lastSequence(try XCTUnwrap(boxsim))
        let writer = try HeldFile(mount.path("scratch.txt"), flags: O_CREAT | O_WRONLY | O_TRUNC)
        try writer.write("written before the unlink\n")
        try succeed(["rm", mount.path("scratch.txt")])
        try writer.write("written after the unlink\n")
        try writer.close()

        try await assertNothingLeftToSend(mount)
        try await unmountAndWait(mount)  // anything journaled would be sent now
        let log = try requests().after(before)
        XCTAssertTrue(log.writes.isEmpty, "nothing about scratch.txt reached Box\n\(log.summary)")
        XCTAssertEqual(try boxNames(in: ""), [])
    }

    /// Defect: the same for a Box file: its re-journaled content would come back as a new file (or park).
    func testWritesToABoxFileDeletedWhileOpenDoNotBringItBack() async throws {
        let mount = try await startAndMount(texts: ["E.txt": "on Box\n", "keep.txt": "kept\n"])
        let api = try self.api
        let original = try XCTUnwrap(try api.entry(at: "E.txt"))
        let writer = try HeldFile(mount.path("E.txt"), flags: O_WRONLY | O_APPEND)
        try writer.write("written before the unlink\n")
        try succeed(["rm", mount.path("E.txt")])
        try writer.write("written after the unlink\n")
        try writer.close()

        try await assertNothingLeftToSend(mount)
        try await unmountAndWait(mount)
        let log = try requests()
        let deletes = log.matching("DELETE", "/2.0/files/\(original.id)").succeeded
        XCTAssertEqual(deletes.count, 1, log.summary)
        XCTAssertEqual(log.writes.map(\.seq), deletes.map(\.seq), "nothing but the delete was sent\n\(log.summary)")
        XCTAssertEqual(try boxNames(in: ""), ["keep.txt"], "E.txt stays deleted")
        XCTAssertEqual(try api.request("GET", "/2.0/files/\(original.id)").status, 404)
    }

    /// Defect: an unlink deleted the file on Box while its new version was on the wire; that upload met the
    /// deletion (404), took it for someone else's, and sent the content up again as a new file before the
    /// unlink dropped the entry: the deleted file was back on Box.
    func testAnUnlinkWhileTheFilesUploadIsOnTheWireLeavesNothingOnBox() async throws {
        let mount = try await startAndMount(texts: ["U.txt": "on Box\n", "keep.txt": "kept\n"])
        let api = try self.api
        let original = try XCTUnwrap(try api.entry(at: "U.txt"))
        // The new version waits 1 s before Box handles it; Box's answer to the delete comes 3 s after it was done.
        try api.addFault(["path_prefix": UploadPaths.newVersion(original.id), "method": "POST", "latency_ms": 1000,
                          "count": 1])
        try api.addFault(["path_prefix": "/2.0/files/\(original.id)", "method": "DELETE", "answer_latency_ms": 3000,
                          "count": 1])
        try append("written before the unlink\n", to: mount.path("U.txt"))
        try await waitUntilUploading("U.txt", in: mount)
        try succeed(["rm", mount.path("U.txt")])

        try await assertNothingLeftToSend(mount)
        try await unmountAndWait(mount)
        let log = try requests()
        XCTAssertEqual(try boxNames(in: ""), ["keep.txt"], "U.txt stays deleted\n\(log.summary)")
        XCTAssertTrue(log.matching("POST", UploadPaths.newFile).succeeded.isEmpty, "no new file\n\(log.summary)")
    }

    /// Defect: a release processed after the utimens wrote the older mtime to the journal.
    func testTimesSetRightAfterACloseAreTheContentModifiedAtOnBox() async throws {
        let mount = try await startAndMount(options: ["write_back_delay=1"])
        // Each file: write 256 KiB, close, and set its times at once (its release may still be on its way).
        let script = """
            import os, sys
            folder, base = sys.argv[1], int(sys.argv[2])
            os.mkdir(folder)
            for i in range(20):
                path = os.path.join(folder, f"f{i}.bin")
                with open(path, "wb") as f:
                    f.write(bytes([i]) * 262144)
                os.utime(path, (base + i, base + i))
            """
        let written = try Shell.run(["python3", "-c", script, mount.path("py"), "1500000000"])
        XCTAssertEqual(written.status, 0, written.stderr)
        // rsync -a: a temp file written, its times set, then renamed into place.
        let local = try makeTemporaryDirectory("rsync-src")
        try succeed(["mkdir", "-p", local.appendingPathComponent("sub").path])
        let tree = ["a.txt": 1_400_000_001, "b.txt": 1_400_000_002, "sub/c.txt": 1_400_000_003]
        for (name, time) in tree {
            try Data("rsync \(name)\n".utf8).write(to: local.appendingPathComponent(name))
            try succeed(["touch", "-d", "@\(time)", local.appendingPathComponent(name).path])
        }
        try succeed(["rsync", "-a", local.path + "/", mount.path("rs")])

        try await waitUntilSettled(mount, timeout: 120)
        let api = try self.api
        for index in 0..<20 {
            let entry = try XCTUnwrap(try api.entry(at: "py/f\(index).bin"), "py/f\(index).bin on Box")
            XCTAssertEqual(entry.size, 262_144)
            XCTAssertEqual(entry.contentModifiedEpoch, 1_500_000_000 + index, "py/f\(index).bin: \(entry)")
        }
        for (name, time) in tree {
            let entry = try XCTUnwrap(try api.entry(at: "rs/\(name)"), "rs/\(name) on Box")
            XCTAssertEqual(entry.sha1, try sha1(of: "rsync \(name)\n"))
            XCTAssertEqual(entry.contentModifiedEpoch, time, "rs/\(name): \(entry)")
        }
        XCTAssertEqual(try boxNames(in: "rs"), ["a.txt", "b.txt", "sub"], "no rsync temp file left")
    }

    /// Defect: a staging file that shrank under a running chunked upload parked the entry for 15 minutes.
    func testRewritingAFileDuringItsChunkedUploadSendsTheNewContentWithoutParking() async throws {
        let mount = try await startAndMount()
        let api = try self.api
        // Every part takes 1.5 s at Box, so the chunked upload of 30 MiB is surely running when the rewrite comes.
        try api.addFault(["path_prefix": "/api/2.0/files/upload_sessions/", "method": "PUT", "latency_ms": 1500])
        let large = try localFile(size: 30 << 20, seed: 91, name: "large.bin")
        let small = try localFile(size: 4000, seed: 92, name: "small.bin")
        try succeed(["cp", large.path, mount.path("data.bin")])
        try await waitUntilUploading("data.bin", in: mount)
        try await waitForAnswers("POST", UploadPaths.sessionCreate, status: 201)
        try succeed(["cp", small.path, mount.path("data.bin")])

        let wanted = try sha1(small.path)
        let started = Date()
        let outcome = try await Poll.until("Box to hold the small content, or a parked upload", timeout: 60) {
            let parked = self.uploads(try self.statusJSON(mount)).filter { $0["state"] as? String == "parked" }
            if !parked.isEmpty { return "parked after \(Int(Date().timeIntervalSince(started))) s: \(parked)" }
            return try api.entry(at: "data.bin")?.sha1 == wanted ? "landed" : nil
        }
        XCTAssertEqual(outcome, "landed")
        try await waitUntilSettled(mount)
        XCTAssertEqual(try boxNames(in: ""), ["data.bin"])
        XCTAssertEqual(try sha1(mount.path("data.bin")), wanted)
        // A body that shrank is the local file's doing: Box was never unreachable.
        let log = try String(contentsOf: try XCTUnwrap(daemonLogs.last), encoding: .utf8)
        XCTAssertFalse(log.contains("Box is unreachable"), log)
    }

}
