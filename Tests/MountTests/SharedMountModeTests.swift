import BoxTestSupport
import Foundation
import XCTest

/// A mount shared with `allow_other` shows (and the kernel enforces) the modes `umask=`, `file_mode=` and
/// `dir_mode=` give; Box itself has no modes.
final class SharedMountModeTests: MountTestCase {
    private func mode(_ path: String) throws -> String {
        try Shell.run(["stat", "-c", "%a", path]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testUmask077KeepsOtherUsersOutOfAnAllowOtherMount() async throws {
        let seed = try SeedTree.make(texts: ["a.txt": "a\n", "docs/b.txt": "b\n"])
        let sim = try await BoxSimProcess.start(seed: seed)
        boxsim = sim
        let user = try LocalUser.make()
        defer { user.remove() }

        let open = try MountFixture.mount(sim, options: ["allow_other"])
        defer { open.unmount() }
        XCTAssertEqual(try mode(open.path("a.txt")), "644")
        XCTAssertEqual(try user.run(["cat", open.path("a.txt")]).stdout, "a\n", "without umask others may read")

        let closed = try MountFixture.mount(sim, options: ["allow_other", "umask=077"])
        defer { closed.unmount() }
        XCTAssertEqual(try mode(closed.path("a.txt")), "600")
        XCTAssertEqual(try mode(closed.path("docs")), "700")
        let refused = try user.run(["cat", closed.path("a.txt")])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("Permission denied"), refused.stderr)
        XCTAssertTrue(try user.run(["ls", closed.path("docs")]).stderr.contains("Permission denied"))
        XCTAssertEqual(try Shell.run(["cat", closed.path("a.txt")]).stdout, "a\n", "the owner still reads")

        let modes = try MountFixture.mount(sim, options: ["allow_other", "file_mode=0640", "dir_mode=0750"])
        defer { modes.unmount() }
        XCTAssertEqual(try mode(modes.path("a.txt")), "640")
        XCTAssertEqual(try mode(modes.path("docs")), "750")
    }

    func testAModeThatIsNotOctalIsRefusedWithOneLine() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("boxfs-mode-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try MountFixture.runMount(source: "box:", mountpoint: folder.path, options: ["umask=999"], token: "x")
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr, "boxfs: option 'umask': '999' is not an octal mode such as 077 or 0640\n")
    }
}
