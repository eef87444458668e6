import BoxTestSupport
import Foundation
import XCTest

/// Unmount and SIGTERM send pending uploads first, waiting at most `upload_wait` seconds; what is left stays
/// journaled, is reported, and goes up on the next mount.
final class ShutdownTests: WriteTestCase {
    func testUnmountSendsPendingUploadsBeforeTheDaemonExits() async throws {
        let mount = try await startAndMount(options: ["write_back_delay=60"])
        try write("sent at unmount\n", to: mount.path("late.txt"))
        XCTAssertNil(try api.entry(at: "late.txt"), "still waiting for its delay")

        try await unmountAndWait(mount, timeout: 30)
        // No polling here: the daemon sent it before exiting.
        XCTAssertEqual(try api.entry(at: "late.txt")?.sha1, try sha1(of: "sent at unmount\n"))
    }

    func testSIGTERMWaitsOnlyUpToTheBoundAndLeavesTheRestJournaled() async throws {
        let logFile = try makeTemporaryDirectory("log").appendingPathComponent("boxfs.log")
        let mount = try await startAndMount(options: ["upload_wait=2", "log_file=\(logFile.path)"])
        let api = try self.api
        // Box holds the first upload for two minutes: far past the 2 s the daemon may wait.
        try api.addFault(["path_prefix": UploadPaths.newFile, "method": "POST", "latency_ms": 120_000, "count": 1])
        try write("stuck at shutdown\n", to: mount.path("stuck.txt"))

        let path = mount.mountpoint.path
        let pids = MountFixture.daemonPIDs(for: path)
        XCTAssertEqual(pids.count, 1)
        let started = Date()
        for pid in pids { kill(pid, SIGTERM) }
        try await Poll.until("the daemon to exit after SIGTERM", timeout: 30) {
            MountFixture.daemonPIDs(for: path).isEmpty ? true : nil
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "upload_wait=2 bounds the wait")
        let log = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        XCTAssertTrue(log.contains("1 upload(s) still pending; they stay journaled"), log)
        if MountFixture.isMounted(path) { try Shell.run(["fusermount3", "-u", "-z", path]) }
        XCTAssertNil(try api.entry(at: "stuck.txt"))

        try api.clearFaults()
        try mountWritable()
        try await waitForBox("stuck.txt", text: "stuck at shutdown\n")
        XCTAssertEqual(try boxNames(in: ""), ["stuck.txt"])
    }

    func testSIGTERMWithUploadsThatFinishInTimeLeavesNothingPending() async throws {
        let logFile = try makeTemporaryDirectory("log").appendingPathComponent("boxfs.log")
        let mount = try await startAndMount(options: ["write_back_delay=60", "upload_wait=30",
                                                      "log_file=\(logFile.path)"])
        let local = try localFile(size: 2 << 20, seed: 51)
        try succeed(["cp", local.path, mount.path("flushed.bin")])

        let path = mount.mountpoint.path
        for pid in MountFixture.daemonPIDs(for: path) { kill(pid, SIGTERM) }
        try await Poll.until("the daemon to exit after SIGTERM", timeout: 40) {
            MountFixture.daemonPIDs(for: path).isEmpty ? true : nil
        }
        XCTAssertEqual(try api.entry(at: "flushed.bin")?.sha1, try sha1(local.path))
        let log = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        XCTAssertFalse(log.contains("still pending"), log)
        XCTAssertFalse(MountFixture.isMounted(path), "SIGTERM unmounts")
    }

    /// A file still open for writing at SIGTERM: what it holds goes up before the daemon exits, and its writer's next
    /// write fails (the connection is gone) rather than vanishing. The same end of the session covers a file closed
    /// just before the signal: the kernel drops a RELEASE it queued but the daemon had not read yet, and the file
    /// stayed open in the daemon's eyes, pending until the next mount.
    func testAFileStillOpenAtSIGTERMIsSentBeforeTheDaemonExits() async throws {
        let logFile = try makeTemporaryDirectory("log").appendingPathComponent("boxfs.log")
        let mount = try await startAndMount(options: ["write_back_delay=60", "upload_wait=30",
                                                      "log_file=\(logFile.path)"])
        let descriptor = open(mount.path("held.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        XCTAssertGreaterThanOrEqual(descriptor, 0, String(cString: strerror(errno)))
        defer { close(descriptor) }
        func put(_ text: String) -> Int {
            text.utf8CString.withUnsafeBufferPointer { Glibc.write(descriptor, $0.baseAddress, text.utf8.count) }
        }
        XCTAssertEqual(put("written before the signal\n"), 26, String(cString: strerror(errno)))

        let path = mount.mountpoint.path
        for pid in MountFixture.daemonPIDs(for: path) { kill(pid, SIGTERM) }
        try await Poll.until("the daemon to exit after SIGTERM", timeout: 40) {
            MountFixture.daemonPIDs(for: path).isEmpty ? true : nil
        }
        let log = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        XCTAssertEqual(try api.entry(at: "held.txt")?.sha1, try sha1(of: "written before the signal\n"), log)
        XCTAssertFalse(log.contains("still pending"), log)
        XCTAssertTrue(log.contains("1 file(s) open for writing had no close when the mount ended"), log)
        XCTAssertEqual(put("too late\n"), -1, "a write after the daemon is gone fails")
    }
}
