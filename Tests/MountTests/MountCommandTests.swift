import BoxTestSupport
import Foundation
import XCTest

/// mount.boxfs as a user meets it: clear one-line errors, background mode, clean unmounts, EROFS with `ro`.
final class MountCommandTests: MountTestCase {
    func testBadInputFailsWithOneClearLine() async throws {
        let sim = try await BoxSimProcess.start(seed: try SeedTree.make(texts: ["a.txt": "a\n"]))
        boxsim = sim
        let mountpoint = FileManager.default.temporaryDirectory.appendingPathComponent("boxfs-bad-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: mountpoint, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: mountpoint) }
        let endpoint = "endpoint=\(sim.baseURL)"
        let cases: [(source: String, mountpoint: String, options: [String], token: String?, expected: String)] = [
            ("box:", mountpoint.path, [endpoint, "frobnicate=1"], sim.developerToken, "unknown option 'frobnicate'"),
            ("box:", mountpoint.path, [endpoint, "uid=abc"], sim.developerToken, "'abc' is not a valid number"),
            ("box:", mountpoint.path, [endpoint, "control_dir=a/b"], sim.developerToken, "option 'control_dir': 'a/b' is not a file name"),
            ("box:", mountpoint.path, [endpoint, "control_dir=.."], sim.developerToken, "option 'control_dir': '..' is not a file name"),
            ("dropbox:", mountpoint.path, [endpoint], sim.developerToken, "unknown source 'dropbox:'"),
            ("box:", mountpoint.path + "-missing", [endpoint], sim.developerToken, "does not exist"),
            ("box:", mountpoint.path, ["endpoint=http://127.0.0.1:1"], sim.developerToken, "cannot reach Box at http://127.0.0.1:1"),
            ("box:", mountpoint.path, [endpoint], "not-a-valid-token", "Box rejected the access token"),
            ("box:", mountpoint.path, [endpoint], nil, "no access token"),
            ("box:/no/such/folder", mountpoint.path, [endpoint], sim.developerToken, "no such folder in Box"),
            ("box:/a.txt", mountpoint.path, [endpoint], sim.developerToken, "is a file"),
        ]
        for item in cases {
            let result = try MountFixture.runMount(source: item.source, mountpoint: item.mountpoint, options: item.options, token: item.token)
            XCTAssertEqual(result.status, 1, "\(item.expected): \(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, "one line for \(item.expected), got: \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("boxfs: "), result.stderr)
            XCTAssertTrue(result.stderr.contains(item.expected), "expected '\(item.expected)' in: \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("not-a-valid-token"), "the token never appears in messages")
            XCTAssertFalse(MountFixture.isMounted(mountpoint.path))
        }
    }

    func testReadOnlyMountRefusesWritesWithEROFS() async throws {
        let seed = try SeedTree.make(texts: ["keep.txt": "unchanged\n", "dir/inner.txt": "inner\n"])
        let mount = try await mountBoxSim(seed: seed, options: ["ro"])
        let attempts = [
            "touch '\(mount.path("new.txt"))'",
            "echo more >> '\(mount.path("keep.txt"))'",
            "echo replaced > '\(mount.path("keep.txt"))'",
            "mkdir '\(mount.path("newdir"))'",
            "rm '\(mount.path("keep.txt"))'",
            "rmdir '\(mount.path("dir"))'",
            "mv '\(mount.path("keep.txt"))' '\(mount.path("moved.txt"))'",
            "truncate -s 0 '\(mount.path("keep.txt"))'",
        ]
        for command in attempts {
            let result = try Shell.bash(command)
            XCTAssertNotEqual(result.status, 0, command)
            XCTAssertTrue(result.stderr.contains("Read-only file system"), "\(command): \(result.stderr)")
        }
        XCTAssertEqual(try succeed(["cat", mount.path("keep.txt")]), "unchanged\n")
        XCTAssertEqual(try succeed(["ls", "-A", mount.mountpoint.path]).split(separator: "\n").sorted(), ["dir", "keep.txt"])
    }

    func testUnmountStopsTheDaemon() async throws {
        let mount = try await mountBoxSim(seed: try SeedTree.make(texts: ["a.txt": "a\n"]))
        let path = mount.mountpoint.path
        XCTAssertTrue(mount.isMounted)
        XCTAssertEqual(MountFixture.daemonPIDs(for: path).count, 1, "mount.boxfs returned and left one daemon serving")
        try succeed(["fusermount3", "-u", path])
        XCTAssertFalse(MountFixture.isMounted(path))
        try await waitUntil("the daemon exits after fusermount3 -u") { MountFixture.daemonPIDs(for: path).isEmpty }
    }

    func testTheDaemonCannotLeaveACoreFileWithTokensInIt() async throws {
        let mount = try await mountBoxSim(seed: try SeedTree.make(texts: ["a.txt": "a\n"]))
        let pid = try XCTUnwrap(MountFixture.daemonPIDs(for: mount.mountpoint.path).first)
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        let core = try XCTUnwrap(limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") })
        XCTAssertEqual(core.split(separator: " ").filter { !$0.isEmpty }.dropFirst(4).prefix(2), ["0", "0"], String(core))
    }

    func testSIGTERMUnmountsCleanly() async throws {
        let mount = try await mountBoxSim(seed: try SeedTree.make(texts: ["a.txt": "a\n"]))
        let path = mount.mountpoint.path
        let pid = try XCTUnwrap(MountFixture.daemonPIDs(for: path).first)
        XCTAssertEqual(try succeed(["cat", mount.path("a.txt")]), "a\n")
        kill(pid, SIGTERM)
        try await waitUntil("SIGTERM unmounts and the daemon exits") {
            !MountFixture.isMounted(path) && MountFixture.daemonPIDs(for: path).isEmpty
        }
    }

    func testForegroundModeStaysAttachedUntilUnmounted() async throws {
        let sim = try await BoxSimProcess.start(seed: try SeedTree.make(texts: ["a.txt": "a\n"]))
        boxsim = sim
        let mountpoint = FileManager.default.temporaryDirectory.appendingPathComponent("boxfs-fg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: mountpoint, withIntermediateDirectories: true)
        defer {
            _ = try? Shell.run(["fusermount3", "-u", "-z", mountpoint.path])
            try? FileManager.default.removeItem(at: mountpoint)
        }
        let process = Process()
        process.executableURL = try MountFixture.locateBinary()
        process.arguments = ["mount", "box:", mountpoint.path, "-f", "-o", "endpoint=\(sim.baseURL)"]
        process.environment = ["BOX_DEVELOPER_TOKEN": sim.developerToken, "PATH": "/usr/bin:/bin:/usr/sbin:/sbin"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try await waitUntil("the foreground mount appears") { MountFixture.isMounted(mountpoint.path) }
        XCTAssertTrue(process.isRunning)
        XCTAssertEqual(try succeed(["cat", mountpoint.appendingPathComponent("a.txt").path]), "a\n")
        try succeed(["fusermount3", "-u", mountpoint.path])
        try await waitUntil("the foreground process exits") { !process.isRunning }
        XCTAssertEqual(process.terminationStatus, 0)
    }

    func waitUntil(_ what: String, timeout: Double = 10, _ condition: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            guard Date() < deadline else { return XCTFail("timed out waiting: \(what)") }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
    }
}
