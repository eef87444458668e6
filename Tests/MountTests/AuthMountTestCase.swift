import BoxTestSupport
import Foundation
import XCTest

/// Shared set-up of the auth mount tests (`Auth*Tests`): a real boxsim (auto-approving OAuth2 sign-ins) seeded
/// with small files, the real `boxfs` binary, real mounts. Profiles, tokens and the block cache live in a temp
/// folder named by `BOXFS_CONFIG_DIR`, never in the real home; every mount is undone in `tearDown`.
class AuthMountTestCase: XCTestCase {
    var sim: BoxSimProcess!
    var configDirectory: URL!
    var mountpoints: [URL] = []

    /// `a.txt`, `a0…a7.txt`, `b0…b7.txt` and `many/f0…f63.txt`: distinct files, so every read reaches Box
    /// (a block already cached would not meet an expired token).
    override func setUp() async throws {
        var texts = ["a.txt": "alpha\n"]
        for index in 0..<64 { texts["many/f\(index).txt"] = "file \(index)\n" }
        for index in 0..<8 { texts["a\(index).txt"] = "a\(index)\n"; texts["b\(index).txt"] = "b\(index)\n" }
        sim = try await BoxSimProcess.start(seed: try SeedTree.make(texts: texts), extraArgs: ["--auto-approve"])
        configDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("boxfs-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: configDirectory, withIntermediateDirectories: true)
    }

    override func tearDown() async throws {
        for mountpoint in mountpoints {
            if MountFixture.isMounted(mountpoint.path) {
                _ = try? Shell.run(["fusermount3", "-u", "-z", mountpoint.path])
            }
            let deadline = Date().addingTimeInterval(10)
            while !MountFixture.daemonPIDs(for: mountpoint.path).isEmpty, Date() < deadline { usleep(20_000) }
            try? FileManager.default.removeItem(at: mountpoint)
        }
        sim.stop()
        try? FileManager.default.removeItem(at: configDirectory)
    }

    var environment: [String: String] {
        ["BOXFS_CONFIG_DIR": configDirectory.path, "XDG_CACHE_HOME": configDirectory.path + "/cache",
         "BOX_DEVELOPER_TOKEN": ""]
    }

    /// `boxfs ARGUMENTS` with the test's configuration folder.
    func boxfs(_ arguments: [String], extra: [String: String] = [:]) throws -> CommandResult {
        try Shell.run([try MountFixture.locateBinary().path] + arguments,
                      environment: environment.merging(extra) { $1 }, timeout: 60)
    }

    /// `mount.boxfs SOURCE NEW-TEMP-FOLDER -o options` with no token in the environment. Each mount gets its
    /// own cache folder (two mounts of one account may not share one), inside the test's folder.
    func mount(_ source: String = "box:", options: [String] = []) throws -> (URL, CommandResult) {
        let mountpoint = FileManager.default.temporaryDirectory
            .appendingPathComponent("boxfs-auth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: mountpoint, withIntermediateDirectories: true)
        mountpoints.append(mountpoint)
        var options = options
        if !options.contains(where: { $0.hasPrefix("cache_dir=") }) {
            options.append("cache_dir=\(configDirectory.path)/cache-\(mountpoints.count)")
        }
        let result = try MountFixture.runMount(
            source: source, mountpoint: mountpoint.path, options: options, token: nil, extraEnvironment: environment)
        return (mountpoint, result)
    }

    /// A mount that must succeed.
    func mounted(
        _ source: String = "box:", options: [String] = [], file: StaticString = #filePath, line: UInt = #line
    ) throws -> URL {
        let (mountpoint, result) = try mount(source, options: options)
        XCTAssertEqual(result.status, 0, "mount failed: \(result.stderr)", file: file, line: line)
        return mountpoint
    }

    func read(_ mountpoint: URL, _ path: String) throws -> CommandResult {
        try Shell.run(["cat", mountpoint.appendingPathComponent(path).path], timeout: 30)
    }

    /// `cat`s every path at once (one shell, background jobs); fails the test if any of them fails.
    func readConcurrently(_ paths: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let script = paths.map { "cat '\($0)' > /dev/null &" }.joined(separator: "\n")
        let waitAll = "\nfail=0; for job in $(jobs -p); do wait $job || fail=1; done; exit $fail"
        let result = try Shell.bash(script + waitAll)
        XCTAssertEqual(result.status, 0, result.stderr, file: file, line: line)
    }

    /// Whether `relative` (e.g. `tokens/default.json`) exists in the configuration folder.
    func configFileExists(_ relative: String) -> Bool {
        FileManager.default.fileExists(atPath: configDirectory.appendingPathComponent(relative).path)
    }

    /// `endpoint=` boxsim and `token_file=` its developer token, then `extra`.
    func developerTokenOptions(_ extra: String...) throws -> [String] {
        ["endpoint=\(sim.baseURL)", "token_file=\(try developerTokenFile())"] + extra
    }

    /// A new file holding `contents` (a secret: the folder is private to the test).
    func privateFile(_ contents: String, name: String = "secret-\(UUID().uuidString)") throws -> String {
        let path = configDirectory.appendingPathComponent(name).path
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        return path
    }
}
