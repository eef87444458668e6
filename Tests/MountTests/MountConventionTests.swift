import BoxTestSupport
import Foundation
import XCTest

/// What users of other mount tools expect of mount.boxfs: no silent mount over files or over another
/// mount, secrets in files only others cannot read, `--version`, and help under the name it was called by.
final class MountConventionTests: MountTestCase {
    private func temporaryFolder(_ prefix: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    func testAFolderWithEntriesOrAMountIsRefusedUnlessNonempty() async throws {
        let sim = try await BoxSimProcess.start(seed: try SeedTree.make(texts: ["a.txt": "a\n"]))
        boxsim = sim
        let folder = try temporaryFolder("boxfs-nonempty")
        try Data("mine\n".utf8).write(to: folder.appendingPathComponent("local.txt"))
        let options = ["endpoint=\(sim.baseURL)", "cache_dir=\(folder.path)-cache"]
        let refused = try MountFixture.runMount(source: "box:", mountpoint: folder.path, options: options, token: sim.developerToken)
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertEqual(refused.stderr.split(separator: "\n").count, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("is not empty") && refused.stderr.contains("-o nonempty"), refused.stderr)
        XCTAssertFalse(MountFixture.isMounted(folder.path))

        let allowed = try MountFixture.runMount(
            source: "box:", mountpoint: folder.path, options: options + ["nonempty"], token: sim.developerToken)
        XCTAssertEqual(allowed.status, 0, allowed.stderr)
        defer { _ = try? Shell.run(["fusermount3", "-u", folder.path]) }
        XCTAssertEqual(try succeed(["cat", folder.appendingPathComponent("a.txt").path]), "a\n")

        // A second mount on the same folder (another cache) would stack on the first.
        let stacked = try MountFixture.runMount(
            source: "box:", mountpoint: folder.path, options: ["endpoint=\(sim.baseURL)", "cache_dir=\(folder.path)-cache2"],
            token: sim.developerToken)
        XCTAssertEqual(stacked.status, 1, stacked.stderr)
        XCTAssertTrue(stacked.stderr.contains("already a mount point (fuse.boxfs)"), stacked.stderr)
        let mounts = try String(contentsOfFile: "/proc/mounts", encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(mounts.filter { $0.split(separator: " ")[1] == folder.path }.count, 1, "one mount, not two")
    }

    func testATokenFileOthersCanReadIsRefusedWithTheFix() async throws {
        let sim = try await BoxSimProcess.start(seed: try SeedTree.make(texts: ["a.txt": "a\n"]))
        boxsim = sim
        let folder = try temporaryFolder("boxfs-token")
        let mountpoint = try temporaryFolder("boxfs-token-mnt")
        let tokenFile = folder.appendingPathComponent("token")
        try Data(sim.developerToken.utf8).write(to: tokenFile)
        chmod(tokenFile.path, 0o644)
        let options = ["endpoint=\(sim.baseURL)", "token_file=\(tokenFile.path)", "cache_dir=\(folder.path)/cache"]
        let refused = try MountFixture.runMount(source: "box:", mountpoint: mountpoint.path, options: options, token: nil)
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("is accessible by others (mode 644): run chmod 600"), refused.stderr)
        XCTAssertFalse(refused.stderr.contains(sim.developerToken), "the token never appears in messages")

        chmod(tokenFile.path, 0o600)
        let mounted = try MountFixture.runMount(source: "box:", mountpoint: mountpoint.path, options: options, token: nil)
        XCTAssertEqual(mounted.status, 0, mounted.stderr)
        defer { _ = try? Shell.run(["fusermount3", "-u", mountpoint.path]) }
        XCTAssertEqual(try succeed(["cat", mountpoint.appendingPathComponent("a.txt").path]), "a\n")
    }

    func testVersionAndHelpUnderTheNameItWasCalledBy() throws {
        let binary = try MountFixture.locateBinary()
        let version = try succeed([binary.path, "--version"])
        XCTAssertTrue(version.range(of: #"^\d+\.\d+\.\d+\n$"#, options: .regularExpression) != nil, version)

        let folder = try temporaryFolder("boxfs-helper")
        let helper = folder.appendingPathComponent("mount.boxfs")
        try FileManager.default.createSymbolicLink(at: helper, withDestinationURL: binary)
        let help = try Shell.run([helper.path, "--help"])
        XCTAssertEqual(help.status, 0, help.stderr)
        XCTAssertTrue(help.stdout.contains("USAGE: mount.boxfs <source> <mountpoint>"), help.stdout)
        XCTAssertFalse(help.stdout.contains("See 'mount --help'"), help.stdout)
        XCTAssertEqual(try succeed([helper.path, "--version"]), version)
        let missing = try Shell.run([helper.path, "box:"])
        XCTAssertNotEqual(missing.status, 0)
        XCTAssertTrue(missing.stderr.contains("mount.boxfs"), missing.stderr)
        XCTAssertFalse(missing.stderr.contains("See 'mount --help'"), missing.stderr)
        // Its own errors start with the name it was called by; `boxfs mount`'s with `boxfs:`.
        let refused = try Shell.run([helper.path, "box:", folder.path, "-o", "umask=999"])
        XCTAssertTrue(refused.stderr.hasPrefix("mount.boxfs: option 'umask'"), refused.stderr)
        let refusedAsBoxfs = try Shell.run([binary.path, "mount", "box:", folder.path, "-o", "umask=999"])
        XCTAssertTrue(refusedAsBoxfs.stderr.hasPrefix("boxfs: option 'umask'"), refusedAsBoxfs.stderr)
    }
}
