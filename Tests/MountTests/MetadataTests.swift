import BoxTestSupport
import Foundation
import XCTest

/// Modification times are kept and sent to Box as `content_modified_at`; chmod and chown are accepted (and
/// ignored), so `cp -a` and `rsync -a` copy trees in without an error.
final class MetadataTests: WriteTestCase {
    static let stamp = "2020-01-02 03:04:05 UTC"
    static let stampEpoch = 1_577_934_245

    /// A local tree with old modification times and assorted modes.
    func makeLocalTree() throws -> URL {
        let root = try makeTemporaryDirectory("meta").appendingPathComponent("src")
        let files = ["a.txt": "alpha\n", "private.txt": "secret\n", "bin/run.sh": "#!/bin/sh\necho hi\n",
                     "sub/deeper/z.txt": "zed\n"]
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(),
                                                    withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        try succeed(["chmod", "600", root.appendingPathComponent("private.txt").path])
        try succeed(["chmod", "755", root.appendingPathComponent("bin/run.sh").path])
        let script = "cd \"$ROOT\" && find . -type f | while read -r f; do n=$((n + 86400)); "
            + "touch -m -d \"@$((1500000000 + ${#f} * 1000 + n))\" \"$f\"; done"
        XCTAssertEqual(try Shell.bash(script, environment: ["ROOT": root.path]).status, 0)
        return root
    }

    /// Relative path → mtime (seconds) of every file below `root`.
    func modificationTimes(_ root: URL) throws -> [String: Int] {
        let lines = try succeed(["find", root.path, "-type", "f", "-printf", "%P %T@\n"]).split(separator: "\n")
        return Dictionary(uniqueKeysWithValues: lines.compactMap { line -> (String, Int)? in
            guard let space = line.lastIndex(of: " "), let time = Double(line[line.index(after: space)...]) else {
                return nil
            }
            return (String(line[..<space]), Int(time))
        })
    }

    /// Waits until Box holds every file of `local` below `folder`, byte-exact and with its modification time.
    func waitForTree(_ local: URL, at folder: String) async throws {
        let expected = try TreeManifest.local(local)
        let times = try modificationTimes(local)
        let api = try self.api
        func boxTimes() throws -> [String: Int] {
            guard let root = try api.entry(at: folder) else { return [:] }
            return try api.tree(root.id).filter { !$0.value.isFolder }.mapValues { $0.contentModifiedEpoch ?? -1 }
        }
        do {
            try await Poll.until("Box to hold \(folder) with content and times", timeout: 60) { () -> Bool? in
                try TreeManifest.box(api, folder: folder) == expected && boxTimes() == times ? true : nil
            }
        } catch {
            let manifest = try TreeManifest.box(api, folder: folder) ?? [:]
            func sorted<V>(_ map: [String: V]) -> String { "\(map.sorted { $0.key < $1.key })" }
            XCTFail("content expected \(sorted(expected))\non Box \(sorted(manifest))\n"
                    + "times expected \(sorted(times))\non Box \(sorted(try boxTimes()))")
            throw error
        }
    }

    func testTouchSetsTheModificationTimeSentToBox() async throws {
        let mount = try await startAndMount(options: ["write_back_delay=2"])
        try write("dated\n", to: mount.path("dated.txt"))
        try succeed(["touch", "-m", "-d", Self.stamp, mount.path("dated.txt")])
        XCTAssertEqual(try succeed(["stat", "-c", "%Y", mount.path("dated.txt")]), "\(Self.stampEpoch)\n")

        let entry = try await waitForBox("dated.txt", text: "dated\n")
        XCTAssertEqual(entry.contentModifiedEpoch, Self.stampEpoch,
                       "content_modified_at: \(entry.contentModifiedAt ?? "-")")
    }

    func testChmodAndChownAreAcceptedAndChangeNothingOnBox() async throws {
        let mount = try await startAndMount(texts: ["f.txt": "unchanged\n"])
        let before = try lastSequence(try XCTUnwrap(boxsim))
        try succeed(["chmod", "600", mount.path("f.txt")])
        try succeed(["chmod", "-R", "go-w", mount.mountpoint.path])
        try succeed(["chown", "\(getuid()):\(getgid())", mount.path("f.txt")])
        XCTAssertEqual(try succeed(["cat", mount.path("f.txt")]), "unchanged\n")
        let log = try requests().after(before)
        XCTAssertTrue(log.writes.isEmpty, "modes and owners are not Box's business\n\(log.summary)")
    }

    func testCpAKeepsContentAndModificationTimes() async throws {
        let local = try makeLocalTree()
        // The default delay: rsync sets the time after closing its temp file, which must not race the upload.
        let mount = try await startAndMount(options: ["write_back_delay=2"])
        let result = try Shell.run(["cp", "-a", local.path, mount.path("copied")])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "", "cp -a reports no error")
        XCTAssertEqual(try modificationTimes(mount.mountpoint.appendingPathComponent("copied")),
                       try modificationTimes(local))
        try await waitForTree(local, at: "copied")
    }

    func testRsyncAKeepsTimesLeavesNoTempFilesAndSendsOnlyWhatChanged() async throws {
        let local = try makeLocalTree()
        // The default delay: rsync sets the time after closing its temp file, which must not race the upload.
        let mount = try await startAndMount(options: ["write_back_delay=2"])
        let first = try Shell.run(["rsync", "-a", local.path + "/", mount.path("synced") + "/"])
        XCTAssertEqual(first.status, 0, first.stderr)
        try await waitForTree(local, at: "synced")
        let original = try XCTUnwrap(try api.entry(at: "synced/a.txt"))

        try Data("alpha, edited\n".utf8).write(to: local.appendingPathComponent("a.txt"))
        let second = try Shell.run(["rsync", "-a", "--stats", local.path + "/", mount.path("synced") + "/"])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertTrue(second.stdout.contains("Number of regular files transferred: 1"),
                      "times seen through the mount match, so only the edited file is sent again:\n\(second.stdout)")
        try await waitForTree(local, at: "synced")
        XCTAssertEqual(try api.entry(at: "synced/a.txt")?.id, original.id, "rsync's temp + rename is a new version")
    }
}
