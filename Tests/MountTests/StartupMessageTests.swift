import BoxTestSupport
import Foundation
import XCTest

/// Errors that used to hide their cause: each is one line saying what is wrong and what to do.
final class StartupMessageTests: MountTestCase {
    private func temporaryFolder(_ prefix: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    /// A user, a folder of theirs with an empty `mnt`, and the words to mount boxsim there as them.
    private func userMount(_ sim: BoxSimProcess) throws -> (LocalUser, URL, (String) throws -> CommandResult) {
        let user = try LocalUser.make()
        addTeardownBlock { user.remove() }
        let home = try user.makeFolder("boxfs-user")
        let mountpoint = home.appendingPathComponent("mnt")
        addTeardownBlock {
            _ = try? Shell.run(["umount", "-l", mountpoint.path])
            try? FileManager.default.removeItem(at: home)
        }
        XCTAssertTrue(try user.run(["mkdir", mountpoint.path]).succeeded)
        let binary = try MountFixture.locateBinary().path
        let mount = { (extra: String) throws -> CommandResult in
            try user.run(
                [binary, "mount", "box:", mountpoint.path, "-o", "endpoint=\(sim.baseURL),cache_dir=\(home.path)/cache" + extra],
                environment: ["BOX_DEVELOPER_TOKEN": sim.developerToken, "HOME": home.path])
        }
        return (user, mountpoint, mount)
    }

    func testAUserWhoCannotOpenDevFuseIsToldSo() async throws {
        let sim = try await BoxSimProcess.start(seed: try SeedTree.make(texts: ["a.txt": "a\n"]))
        boxsim = sim
        let (user, _, mount) = try userMount(sim)
        if try user.run(["test", "-r", "/dev/fuse", "-a", "-w", "/dev/fuse"]).succeeded {
            throw XCTSkip("every user may open /dev/fuse here")
        }
        let result = try mount("")
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("failed to open /dev/fuse: Permission denied"), result.stderr)
        XCTAssertTrue(result.stderr.contains("needs read and write access to /dev/fuse"), result.stderr)
    }

    func testAllowOtherWithoutUserAllowOtherSaysSoForAUserOtherThanRoot() async throws {
        let conf = (try? String(contentsOfFile: "/etc/fuse.conf", encoding: .utf8)) ?? ""
        if conf.split(separator: "\n").contains(where: { $0.trimmingCharacters(in: .whitespaces) == "user_allow_other" }) {
            throw XCTSkip("/etc/fuse.conf allows allow_other for every user here")
        }
        let sim = try await BoxSimProcess.start(seed: try SeedTree.make(texts: ["a.txt": "a\n"]))
        boxsim = sim
        let (user, mountpoint, mount) = try userMount(sim)
        // Most systems let every user open /dev/fuse (mode 0666); make it so for this test if it is not.
        var device = stat()
        XCTAssertEqual(stat("/dev/fuse", &device), 0)
        if device.st_mode & 0o006 != 0o006 {
            chmod("/dev/fuse", (device.st_mode & 0o7777) | 0o006)
            addTeardownBlock { chmod("/dev/fuse", device.st_mode & 0o7777) }
        }
        let plain = try mount("")
        guard plain.succeeded else { throw XCTSkip("a user other than root cannot mount here: \(plain.stderr)") }
        XCTAssertEqual(try user.run(["cat", mountpoint.appendingPathComponent("a.txt").path]).stdout, "a\n")
        XCTAssertTrue(try user.run(["fusermount3", "-u", mountpoint.path]).succeeded)

        let result = try mount(",allow_other")
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("user_allow_other"), result.stderr)
        XCTAssertTrue(result.stderr.contains("/etc/fuse.conf"), result.stderr)
    }

    func testAnEndpointThatIsNotABoxAPISaysSo() async throws {
        let sim = try await BoxSimProcess.start(seed: try SeedTree.make(texts: ["a.txt": "a\n"]))
        boxsim = sim
        let mountpoint = try temporaryFolder("boxfs-notbox")
        let result = try MountFixture.runMount(
            source: "box:", mountpoint: mountpoint.path,
            options: ["endpoint=\(sim.baseURL)/not-box", "cache_dir=\(mountpoint.path)-cache"], token: sim.developerToken)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        XCTAssertTrue(
            result.stderr.contains("\(sim.baseURL)/not-box does not answer like a Box API (HTTP 404 for /2.0/users/me)"),
            result.stderr)
    }

    func testUnmountOfSomethingThatIsNotABoxfsMountSaysSo() throws {
        let folder = try temporaryFolder("boxfs-unmount")
        let binary = try MountFixture.locateBinary().path
        let result = try Shell.run([binary, "unmount", folder.path])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr, "boxfs unmount: \(folder.path) is not a boxfs mount (nothing is mounted there)\n")
        // Another filesystem's mount is left alone.
        let other = try temporaryFolder("boxfs-unmount-tmpfs")
        guard try Shell.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", other.path]).succeeded else { return }
        defer { _ = try? Shell.run(["umount", "-l", other.path]) }
        let tmpfs = try Shell.run([binary, "unmount", other.path])
        XCTAssertEqual(tmpfs.status, 1)
        XCTAssertTrue(tmpfs.stderr.contains("is not a boxfs mount (it is a tmpfs mount)"), tmpfs.stderr)
        XCTAssertTrue(MountFixture.isMounted(other.path))
    }
}
