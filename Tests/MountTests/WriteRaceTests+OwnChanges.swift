import BoxTestSupport
import Foundation
import XCTest

/// The mount's own changes racing each other: a close whose release reaches the daemon after the next open, a
/// rename over a file whose upload is on the wire, a listing opened before a rename. Found by the
/// reference-model tier (docs/TESTING.md); each lost data or made a conflicted copy nobody caused.
extension WriteRaceTests {
    /// Defect: the kernel's RELEASE of a close comes after close(2) has returned, so the next open's
    /// `fileOpened` could reach the uploader before the previous close's `fileClosed`; that late close marked
    /// the file closed under its new writer, an upload of older content counted as the last, and the appends
    /// made after it never reached Box (status idle).
    func testAppendsRightAfterEachCloseAllReachBoxWithNoWriteBackDelay() async throws {
        let mount = try await startAndMount(options: ["write_back_delay=0"])
        // A large append, then small ones at once: each close starts an upload at once, and the next open and
        // write meet it on the wire (the shape the reference-model tier shrank the loss to).
        let script = """
            import hashlib, os, sys, threading
            sizes = [176143, 1000, 3080, 1926, 2500, 700]
            def lister():
                while not done:
                    for entry in os.scandir(sys.argv[1]):
                        try: entry.stat()
                        except OSError: pass
            done = False
            walker = threading.Thread(target=lister)
            walker.start()
            def writer(n):
                path = os.path.join(sys.argv[1], "f%d" % n)
                data = b""
                for round in range(4):
                    for size in sizes:
                        chunk = os.urandom(size)
                        with open(path, "ab") as f:
                            f.write(chunk)
                        data += chunk
                sums[n] = hashlib.sha1(data).hexdigest()
            sums = {}
            writers = [threading.Thread(target=writer, args=(n,)) for n in range(6)]
            for w in writers: w.start()
            for w in writers: w.join()
            done = True
            walker.join()
            # Printed here, not by the writers: two threads' prints can interleave within a line.
            for n in sorted(sums): print("f%d %s" % (n, sums[n]))
            """
        let result = try Shell.run(["python3", "-c", script, mount.mountpoint.path], timeout: 300)
        XCTAssertEqual(result.status, 0, result.stderr)
        try await waitUntilSettled(mount)
        let lines = result.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 6, result.stdout)
        for line in lines {
            let parts = line.split(separator: " ").map(String.init)
            XCTAssertEqual(try sha1(mount.path(parts[0])), parts[1], "\(parts[0]) in the mount")
            try await waitForBox(parts[0], sha1: parts[1], timeout: 60)
        }
    }

    /// Defect: `rename f0 f1` while f1's own upload was on the wire built f0's content as a new version of f1
    /// on the version f1 had before that upload; Box answered 412 and the mount made `f1 (conflict …)`,
    /// although only this mount ever wrote f1.
    func testARenameOverAFileWhoseUploadIsOnTheWireMakesNoConflictedCopy() async throws {
        let mount = try await startAndMount(
            texts: ["f0": "content of f0\n", "f1": "first f1\n"], options: ["write_back_delay=0", "cache=off"])
        XCTAssertEqual(try succeed(["cat", mount.path("f1")]), "first f1\n")
        // f1's next upload takes a second; f0's download (needed to make its local copy) three.
        let api = try self.api
        let upload = try api.addFault(["path_prefix": "/api/2.0/files/", "method": "POST", "latency_ms": 1000, "count": 1])
        try api.addFault(["path_prefix": "/dl/", "latency_ms": 3000, "count": 1])
        try write("new f1\n", to: mount.path("f1"))
        try await waitUntilUsed(fault: upload)
        try succeed(["mv", mount.path("f0"), mount.path("f1")])
        try await waitUntilSettled(mount)
        try await waitForBox("f1", text: "content of f0\n", timeout: 30)
        XCTAssertEqual(try boxNames(in: ""), ["f1"], "no conflicted copy, and f0 is gone")
        XCTAssertEqual(try succeed(["ls", mount.mountpoint.path]), "f1\n")
    }

    /// Defect: `rename f0 f1` while f0's own new version was on the wire redirected f0's content to f1 and deleted
    /// f0 on Box; the attempt then met that deletion (404), took it for someone else's, and sent the content up
    /// as a new file named f1, which Box refused (409): `f1 (conflict …)`, although only this mount wrote both.
    func testARenameWhoseSourceUploadIsOnTheWireMakesNoConflictedCopy() async throws {
        let mount = try await startAndMount(texts: ["f0": "first f0\n", "f1": "first f1\n"])
        let api = try self.api
        let source = try XCTUnwrap(try api.entry(at: "f0"))
        // f0's new version reaches Box a second after it was sent: after the rename has deleted f0.
        let upload = try api.addFault(["path_prefix": UploadPaths.newVersion(source.id), "method": "POST",
                                       "latency_ms": 1000, "count": 1])
        try append("more f0\n", to: mount.path("f0"))
        try await waitUntilUsed(fault: upload)
        try succeed(["mv", mount.path("f0"), mount.path("f1")])
        try await waitUntilSettled(mount)
        try await waitForBox("f1", text: "first f0\nmore f0\n", timeout: 30)
        let summary = try requests().summary
        XCTAssertEqual(try boxNames(in: ""), ["f1"], "no conflicted copy, and f0 is gone\n\(summary)")
        XCTAssertEqual(try succeed(["cat", mount.path("f1")]), "first f0\nmore f0\n")
    }

    /// Defect: a new file renamed while its first upload was on the wire landed under its old name, and the mount
    /// dropped its local copy before it had renamed the Box file; a listing fetched in between (here a refresh)
    /// showed the old name and lost the new one.
    func testAFileRenamedDuringItsFirstUploadIsNeverListedUnderItsOldName() async throws {
        let mount = try await startAndMount(texts: ["keep.txt": "kept\n"])
        // Box takes its time with the rename that follows the upload.
        try await renameDuringFirstUpload("new content\n", from: "N.txt", to: "M.txt", in: mount, latency: 1000, faults: [
            ["path_prefix": "/2.0/files/", "method": "PUT", "latency_ms": 3000, "count": 1]])
        let refresh = try Shell.run([try MountFixture.locateBinary().path, "refresh", mount.mountpoint.path])
        XCTAssertEqual(refresh.status, 0, refresh.stderr)
        XCTAssertEqual(try succeed(["ls", mount.mountpoint.path]), "M.txt\nkeep.txt\n", "listed while Box renames it")
        XCTAssertEqual(try succeed(["cat", mount.path("M.txt")]), "new content\n")
        try await waitUntilSettled(mount)
        try await waitForBox("M.txt", text: "new content\n")
        XCTAssertEqual(try boxNames(in: ""), ["M.txt", "keep.txt"])
        XCTAssertEqual(try succeed(["ls", mount.mountpoint.path]), "M.txt\nkeep.txt\n")
    }

    /// Defect (found by the reference-model tier): a new file moved out of its folder while its first upload was
    /// on the wire landed in that folder, and the folder's `rmdir` before the mount had moved it on Box failed
    /// with ENOTEMPTY although the mount showed the folder empty.
    func testRemovingAFolderRightAfterAFileWasMovedOutDuringItsUploadSucceeds() async throws {
        let mount = try await startAndMount(texts: ["d/.keep": ""])
        try succeed(["rm", mount.path("d/.keep")])
        try await renameDuringFirstUpload("moved out\n", from: "d/f", to: "f", in: mount, latency: 1000, faults: [
            ["path_prefix": "/2.0/files/", "method": "PUT", "latency_ms": 2000, "count": 1]])
        try succeed(["rmdir", mount.path("d")])
        try await waitUntilSettled(mount)
        try await waitForBox("f", text: "moved out\n")
        XCTAssertEqual(try boxNames(in: ""), ["f"])
    }

    /// Defect: a new file renamed while its first upload was on the wire landed under its old name; its entry was
    /// then forgotten and only a follow-up (not journaled) renamed it on Box: when that rename failed, or the daemon
    /// was killed first, Box kept the old name for good.
    func testAFileRenamedDuringItsFirstUploadGetsItsNameOnBoxAfterAKill() async throws {
        let mount = try await startAndMount(options: ["write_back_delay=3"])
        // The mount's immediate rename of the landed file is refused once.
        try await renameDuringFirstUpload("first\n", from: "f2", to: "f0", in: mount, latency: 2000, faults: [
            ["path_prefix": "/2.0/files/", "method": "PUT", "error_status": 400, "count": 1]])
        try await waitForAnswers("PUT", "/2.0/files/[0-9]+", status: 400)
        try await crash(mount)
        let again = try mountWritable()
        try await waitUntilSettled(again)
        try await waitForBox("f0", text: "first\n", timeout: 30)
        XCTAssertEqual(try boxNames(in: ""), ["f0"], "the file has its new name on Box")
        XCTAssertEqual(try succeed(["cat", again.path("f0")]), "first\n")
        let uploads = try requests().matching("POST", "/api/2.0/files/([0-9]+/)?content").succeeded
        XCTAssertEqual(uploads.count, 1, "the content went up once")
    }

    /// Defect (found by the reference-model tier): a file renamed during its first upload and deleted right after
    /// it landed came back in the listing: the immediate rename on Box, answered after the unlink, put it back
    /// into the cached listing.
    func testAFileDeletedWhileItsRenameOnBoxIsAnsweredStaysDeleted() async throws {
        // The upload's own move of the landed file waits write_back_delay; the mount's immediate one is slow to answer.
        let mount = try await startAndMount(texts: ["keep.txt": "kept\n"], options: ["dir_cache_ttl=600", "write_back_delay=4"])
        try await renameDuringFirstUpload("short-lived\n", from: "N.txt", to: "M.txt", in: mount, latency: 1000, faults: [
            ["path_prefix": "/2.0/files/", "method": "PUT", "answer_latency_ms": 2000, "count": 1]])
        try succeed(["rm", mount.path("M.txt")])
        try await waitForAnswers("PUT", "/2.0/files/[0-9]+", status: 200)
        try await Task.sleep(nanoseconds: 300_000_000)
        XCTAssertEqual(try succeed(["ls", mount.mountpoint.path]), "keep.txt\n")
        try await waitUntilSettled(mount)
        XCTAssertEqual(try boxNames(in: ""), ["keep.txt"])
        XCTAssertEqual(try succeed(["ls", mount.mountpoint.path]), "keep.txt\n")
    }

    /// Defect: a readdirplus answered from a folder snapshot taken before a rename handed the kernel the
    /// renamed file under its old name; the next write of the new name went to that node, the listing showed
    /// the old name, and its upload renamed the Box file back.
    func testAListingOpenedBeforeARenameDoesNotBringTheOldNameBack() async throws {
        let mount = try await startAndMount(options: ["write_back_delay=0"])
        let folder = mount.path("t")
        try succeed(["mkdir", folder])
        try write("first\n", to: folder + "/f3")
        try await waitUntilSettled(mount)
        try await waitForBox("t/f3", text: "first\n")
        let script = """
            import os, sys
            d = sys.argv[1]
            fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)   # the folder is opened: its snapshot says f3
            os.rename(d + "/f3", d + "/f1")
            with open("/proc/sys/vm/drop_caches", "w") as f:
                f.write("2")                                 # the kernel forgets the file's inode
            for entry in os.scandir(fd):                     # readdirplus from the snapshot
                pass
            os.close(fd)
            with open(d + "/f1", "w") as f:
                f.write("second\\n")
            print(" ".join(sorted(os.listdir(d))))
            """
        let result = try Shell.run(["python3", "-c", script, folder], timeout: 60)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "f1\n", "the listing shows the new name only")
        try await waitUntilSettled(mount)
        try await waitForBox("t/f1", text: "second\n")
        XCTAssertEqual(try boxNames(in: "t"), ["f1"])
    }

    /// Defect: an upload that landed after the file was renamed here (and was not its last) put Box's older
    /// name back into the journal; after a `kill -9` the next mount gave the file its old name back on Box.
    func testARenameWhileAnUploadIsOnTheWireSurvivesAKill() async throws {
        let mount = try await startAndMount(options: ["write_back_delay=3"])
        try write("first\n", to: mount.path("f2"))
        // The first upload (after 3 s) takes 2 s on the wire; meanwhile the file grows and is renamed.
        let upload = try api.addFault(["path_prefix": "/api/2.0/files/content", "method": "POST", "latency_ms": 2000,
                                       "count": 1])
        try await waitUntilUsed(fault: upload, timeout: 30)
        try append("second\n", to: mount.path("f2"))
        try succeed(["mv", mount.path("f2"), mount.path("f0")])
        try await waitForAnswers("POST", "/api/2.0/files/content", status: 201)
        try await Task.sleep(for: .milliseconds(300))  // the landed upload is booked; the next waits 3 s
        try await crash(mount)
        let again = try mountWritable()
        try await waitUntilSettled(again)
        try await waitForBox("f0", text: "first\nsecond\n", timeout: 60)
        XCTAssertEqual(try boxNames(in: ""), ["f0"], "the file keeps its new name on Box")
        XCTAssertEqual(try succeed(["cat", again.path("f0")]), "first\nsecond\n")
    }
}
