import BoxTestSupport
import Foundation
import XCTest

/// Symbolic links, which Box does not have: with `-o links` each is kept as a Box file `NAME.boxlink` holding its
/// target and shown as the link; without it `symlink` is EPERM, logged with its path, and `rsync -a` copies the rest.
final class SymlinkTests: WriteTestCase {
    /// `a.txt`, `sub/b.txt`, and the links `link -> a.txt` and `sub/up -> ../a.txt`.
    func makeTreeWithLinks() throws -> URL {
        let root = try makeTemporaryDirectory("links").appendingPathComponent("src")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try Data("alpha\n".utf8).write(to: root.appendingPathComponent("a.txt"))
        try Data("beta\n".utf8).write(to: root.appendingPathComponent("sub/b.txt"))
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("link").path, withDestinationPath: "a.txt")
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("sub/up").path, withDestinationPath: "../a.txt")
        return root
    }

    func testWithLinksRsyncACopiesSymlinksAsBoxlinkFilesShownAsLinks() async throws {
        let local = try makeTreeWithLinks()
        // The default delay: rsync sets the time after closing its temp file, which must not race the upload.
        let mount = try await startAndMount(options: ["links", "write_back_delay=2"])
        let result = try Shell.run(["rsync", "-a", local.path + "/", mount.path("synced") + "/"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try succeed(["readlink", mount.path("synced/link")]), "a.txt\n")
        XCTAssertEqual(try succeed(["readlink", mount.path("synced/sub/up")]), "../a.txt\n")
        XCTAssertEqual(try succeed(["stat", "-c", "%F %s", mount.path("synced/link")]), "symbolic link 5\n")
        XCTAssertEqual(try succeed(["cat", mount.path("synced/sub/up")]), "alpha\n", "the kernel follows the link")
        XCTAssertEqual(try succeed(["ls", "-A", mount.path("synced")]), "a.txt\nlink\nsub\n")
        _ = try await waitForBox("synced/link.boxlink", text: "a.txt")
        _ = try await waitForBox("synced/sub/up.boxlink", text: "../a.txt")
        _ = try await waitForBox("synced/a.txt", text: "alpha\n")

        let again = try Shell.run(["rsync", "-a", "--stats", local.path + "/", mount.path("synced") + "/"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains("Number of regular files transferred: 0"), again.stdout)

        try succeed(["mv", mount.path("synced/link"), mount.path("synced/renamed")])
        XCTAssertEqual(try succeed(["readlink", mount.path("synced/renamed")]), "a.txt\n")
        try succeed(["rm", mount.path("synced/sub/up")])
        XCTAssertEqual(try succeed(["ls", "-A", mount.path("synced"), mount.path("synced/sub")]),
                       "\(mount.path("synced")):\na.txt\nrenamed\nsub\n\n\(mount.path("synced/sub")):\nb.txt\n")
        try await Poll.until("Box to hold the renamed link only", timeout: 30) { () -> Bool? in
            try boxNames(in: "synced") == ["a.txt", "renamed.boxlink", "sub"] && boxNames(in: "synced/sub") == ["b.txt"] ? true : nil
        }

        // Another mount, with nothing cached, shows the Box file as the link; without the option, as the file it is.
        let fresh = try mountWithFreshCache(options: ["links"])
        XCTAssertEqual(try succeed(["readlink", fresh.path("synced/renamed")]), "a.txt\n")
        XCTAssertEqual(try succeed(["ls", "-A", fresh.path("synced")]), "a.txt\nrenamed\nsub\n")
        let plain = try mountWithFreshCache()
        XCTAssertEqual(try succeed(["cat", plain.path("synced/renamed.boxlink")]), "a.txt")
    }

    func testWithoutLinksRsyncCopiesTheRestAndReportsEachSymlink() async throws {
        let local = try makeTreeWithLinks()
        let log = try makeTemporaryDirectory("boxfs-log").appendingPathComponent("boxfs.log")
        let mount = try await startAndMount(options: ["log_file=\(log.path)"])
        let result = try Shell.run(["rsync", "-a", local.path + "/", mount.path("synced") + "/"])
        XCTAssertEqual(result.status, 23, "some files were not transferred: \(result.stderr)")
        XCTAssertTrue(result.stderr.contains("link\" -> \"a.txt\" failed: Operation not permitted"), result.stderr)
        XCTAssertTrue(result.stderr.contains("up\" -> \"../a.txt\" failed: Operation not permitted"), result.stderr)
        _ = try await waitForBox("synced/a.txt", text: "alpha\n")
        _ = try await waitForBox("synced/sub/b.txt", text: "beta\n")
        let text = try String(contentsOf: log, encoding: .utf8)
        XCTAssertTrue(text.contains("symlink synced/link -> a.txt refused (EPERM)"), text)
        XCTAssertTrue(text.contains("symlink synced/sub/up -> ../a.txt refused (EPERM)"), text)
    }
}
