import BoxTestSupport
import Foundation
import XCTest

/// Shared set-up for write-path tests: boxsim with a seed, read-write mounts that keep their write-back state in a
/// cache folder the test owns (so a remount finds the journal), a crash helper, and Box as another client sees it.
class WriteTestCase: MountTestCase {
    /// The `cache_dir=` of every mount this test makes (block cache and write-back journal).
    private(set) var cacheDirectory: URL?
    private var fixtures: [MountFixture] = []
    /// Removed in `tearDown`, after the mounts are gone (teardown blocks would run while daemons still write).
    var temporaryDirectories: [URL] = []
    /// The `log_file=` of each mount, printed when the test fails.
    private(set) var daemonLogs: [URL] = []
    func rememberDaemonLog(_ url: URL) { daemonLogs.append(url) }

    override func tearDown() async throws {
        for fixture in fixtures.reversed() { fixture.unmount() }
        if (testRun?.totalFailureCount ?? 0) > 0 { printDaemonLogs() }
        fixtures = []
        try await super.tearDown()
        for url in temporaryDirectories { try? FileManager.default.removeItem(at: url) }
        temporaryDirectories = []
    }

    /// A temp folder removed when the test ends.
    func makeTemporaryDirectory(_ prefix: String = "boxfs-test") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        temporaryDirectories.append(url)
        return url
    }

    /// Starts boxsim with `texts` and pattern files of `largeFiles` bytes in the admin's root folder.
    @discardableResult
    func startBoxSim(texts: [String: String] = [:], largeFiles: [String: Int] = [:]) async throws -> BoxSimProcess {
        let seed = try SeedTree.make(texts: texts, largeFiles: largeFiles)
        temporaryDirectories.append(seed)
        let sim = try await BoxSimProcess.start(seed: seed)
        boxsim = sim
        return sim
    }

    /// Mounts the running boxsim read-write. `write_back_delay=0` unless `options` sets it; `cache_dir` is this
    /// test's own folder, the same for every mount of the test.
    @discardableResult
    func mountWritable(options: [String] = []) throws -> MountFixture {
        let sim = try XCTUnwrap(boxsim, "start boxsim first")
        let cache = try cacheDirectory ?? makeTemporaryDirectory("boxfs-cache")
        cacheDirectory = cache
        var all = options
        if !all.contains(where: { $0.hasPrefix("write_back_delay=") }) { all.append("write_back_delay=0") }
        all.append("cache_dir=\(cache.path)")
        let fixture = try MountFixture.mount(sim, options: try withLogFile(all))
        fixtures.append(fixture)
        mount = fixture
        return fixture
    }

    /// A mount of the running boxsim with a new, empty cache folder of its own: what it shows comes from Box.
    func mountWithFreshCache(options: [String] = []) throws -> MountFixture {
        let fixture = try MountFixture.mount(try XCTUnwrap(boxsim), options: try withLogFile(options))
        fixtures.append(fixture)
        return fixture
    }

    /// `startBoxSim` then `mountWritable`.
    func startAndMount(texts: [String: String] = [:], largeFiles: [String: Int] = [:],
                       options: [String] = []) async throws -> MountFixture {
        try await startBoxSim(texts: texts, largeFiles: largeFiles)
        return try mountWritable(options: options)
    }

    /// `kill -9` of the mount's daemon, then a lazy unmount of the dead mount (as an admin would clean up).
    func crash(_ fixture: MountFixture, file: StaticString = #filePath, line: UInt = #line) async throws {
        let path = fixture.mountpoint.path
        let pids = MountFixture.daemonPIDs(for: path)
        XCTAssertFalse(pids.isEmpty, "no daemon found for \(path)", file: file, line: line)
        for pid in pids { kill(pid, SIGKILL) }
        try await Poll.until("the killed daemon to disappear", timeout: 10) {
            MountFixture.daemonPIDs(for: path).isEmpty ? true : nil
        }
        try Shell.run(["fusermount3", "-u", "-z", path], timeout: 20)
        XCTAssertFalse(MountFixture.isMounted(path), "the dead mount is gone", file: file, line: line)
    }

    /// `fusermount3 -u`, then waits for the daemon to exit by itself (it sends pending uploads first).
    func unmountAndWait(_ fixture: MountFixture, timeout: Double = 60) async throws {
        let path = fixture.mountpoint.path
        try succeed(["fusermount3", "-u", path])
        try await Poll.until("the daemon of \(path) to exit", timeout: timeout) {
            MountFixture.daemonPIDs(for: path).isEmpty ? true : nil
        }
    }

    /// Writes `text` to `path` with the shell (`printf > path`): create or truncate, write, close.
    func write(_ text: String, to path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try Shell.bash("printf '%s' \"$TEXT\" > \"$DEST\"", environment: ["TEXT": text, "DEST": path])
        XCTAssertEqual(result.status, 0, "writing \(path): \(result.stderr)", file: file, line: line)
    }

    /// Runs a command that must fail; asserts its stderr names `message` (the errno text) and answers it.
    @discardableResult
    func fail(_ arguments: [String], with message: String,
              file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try Shell.run(arguments)
        XCTAssertNotEqual(result.status, 0, "\(arguments.joined(separator: " ")) should fail", file: file, line: line)
        XCTAssertTrue(result.stderr.contains(message),
                      "\(arguments.joined(separator: " ")): expected '\(message)', got: \(result.stderr)",
                      file: file, line: line)
        return result.stderr
    }

    /// A local file of `size` deterministic bytes (`seed` varies them), outside the mount.
    func localFile(size: Int, seed: UInt64 = 1, name: String = "data.bin") throws -> URL {
        let url = try makeTemporaryDirectory("boxfs-local").appendingPathComponent(name)
        try SeedTree.writePatternFile(at: url, size: size, seed: seed &* 0x9E37_79B9_7F4A_7C15 | 1)
        return url
    }

    /// A local copy of what `startBoxSim(largeFiles:)` seeded for a file of `size` bytes.
    func localCopyOfSeededFile(size: Int, name: String = "seeded.bin") throws -> URL {
        let url = try makeTemporaryDirectory("boxfs-local").appendingPathComponent(name)
        try SeedTree.writePatternFile(at: url, size: size)
        return url
    }

    /// The SHA-1 (hex) of `text`'s UTF-8 bytes.
    func sha1(of text: String) throws -> String {
        let result = try Shell.bash("printf '%s' \"$TEXT\" | sha1sum", environment: ["TEXT": text])
        return String(result.stdout.prefix(40))
    }

    /// Waits until Box holds a file at `path` whose SHA-1 is `sha1`; answers it.
    @discardableResult
    func waitForBox(_ path: String, sha1: String, timeout: Double = 60) async throws -> BoxEntry {
        let api = try self.api
        return try await Poll.until("Box to hold \(path) with SHA-1 \(sha1)", timeout: timeout) {
            try api.entry(at: path).flatMap { $0.sha1 == sha1 ? $0 : nil }
        }
    }

    /// Waits until Box holds `path` with exactly `text`.
    @discardableResult
    func waitForBox(_ path: String, text: String, timeout: Double = 60) async throws -> BoxEntry {
        try await waitForBox(path, sha1: try sha1(of: text), timeout: timeout)
    }

    /// Names directly in a Box folder (`""` = root), sorted.
    func boxNames(in folderPath: String) throws -> [String] {
        let api = try self.api
        let folder = try XCTUnwrap(try api.entry(at: folderPath), "no folder \(folderPath) on Box")
        return try api.items(in: folder.id).map(\.name).sorted()
    }

    /// `boxfs status MOUNTPOINT --json`, parsed.
    func statusJSON(_ fixture: MountFixture) throws -> [String: Any] {
        let output = try succeed([try MountFixture.locateBinary().path, "status", fixture.mountpoint.path, "--json"])
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], output)
    }

    /// Waits until `boxfs status` shows the upload of `name` running (state `uploading`).
    func waitUntilUploading(_ name: String, in fixture: MountFixture, timeout: Double = 30) async throws {
        try await Poll.until("the upload of \(name) to be running", timeout: timeout, interval: 0.05) {
            let uploads = try self.statusJSON(fixture)["uploads"] as? [[String: Any]] ?? []
            let running = uploads.contains { $0["name"] as? String == name && $0["state"] as? String == "uploading" }
            return running ? true : nil
        }
    }

    /// The request log of the running boxsim.
    func requests() throws -> [LoggedRequest] { try XCTUnwrap(boxsim).requestLog() }

    /// Appends `text` with the shell (`printf >> path`): open, write at the end, close.
    func append(_ text: String, to path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try Shell.bash("printf '%s' \"$TEXT\" >> \"$DEST\"", environment: ["TEXT": text, "DEST": path])
        XCTAssertEqual(result.status, 0, "appending to \(path): \(result.stderr)", file: file, line: line)
    }

    /// `boxfs refresh PATH`, which must succeed.
    func refresh(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try Shell.run([try MountFixture.locateBinary().path, "refresh", path])
        XCTAssertEqual(result.status, 0, result.stderr, file: file, line: line)
    }
}
