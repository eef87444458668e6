import BoxTestSupport
import Foundation
import XCTest

/// `Type=notify` units: the foreground daemon sends READY=1 to `$NOTIFY_SOCKET` once the mount is ready.
final class SystemdReadinessTests: MountTestCase {
    func testTheDaemonSendsReadyToNotifySocketOnceMounted() async throws {
        let sim = try await BoxSimProcess.start(seed: try SeedTree.make(texts: ["a.txt": "a\n"]))
        boxsim = sim
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("boxfs-notify-\(UUID().uuidString)")
        let mountpoint = folder.appendingPathComponent("mnt")
        try FileManager.default.createDirectory(at: mountpoint, withIntermediateDirectories: true)
        defer {
            _ = try? Shell.run(["fusermount3", "-u", "-z", mountpoint.path])
            try? FileManager.default.removeItem(at: folder)
        }
        let binary = try MountFixture.locateBinary().path
        // Listens like systemd: a datagram socket; runs the daemon in the foreground; reports what it heard
        // and whether the folder was a mount point when READY=1 arrived.
        let script = """
            import os, socket, subprocess, sys
            path = sys.argv[1]
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            listener.bind(path)
            listener.settimeout(30)
            env = dict(os.environ, NOTIFY_SOCKET=path, BOX_DEVELOPER_TOKEN=sys.argv[5])
            daemon = subprocess.Popen([sys.argv[2], "mount", "box:", sys.argv[3], "-f", "-o", sys.argv[4]], env=env,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            message = listener.recv(4096).decode()
            print("message=" + message.replace("\\n", "|"))
            print("mounted=" + str(os.path.ismount(sys.argv[3])))
            subprocess.run(["fusermount3", "-u", sys.argv[3]])
            print("exit=" + str(daemon.wait(timeout=30)))
            """
        let result = try Shell.run(
            ["python3", "-c", script, folder.appendingPathComponent("notify").path, binary, mountpoint.path,
             "endpoint=\(sim.baseURL),cache_dir=\(folder.path)/cache", sim.developerToken], timeout: 90)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("message=READY=1|STATUS=mounted box: on \(mountpoint.path)"), result.stdout)
        XCTAssertTrue(result.stdout.contains("mounted=True"), result.stdout)
        XCTAssertTrue(result.stdout.contains("exit=0"), result.stdout)
    }
}
