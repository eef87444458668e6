import Foundation
import Synchronization

public enum MountFixtureError: Error, CustomStringConvertible {
    case mountFailed(status: Int32, stderr: String)
    case binaryNotFound(String)

    public var description: String {
        switch self {
        case .mountFailed(let status, let stderr): "mount.boxfs failed with status \(status): \(stderr)"
        case .binaryNotFound(let path): "boxfs binary not found at \(path) (build first, or set BOXFS_BIN)"
        }
    }
}

/// A real boxfs mount of a running boxsim in a temp folder, started the way a user starts it
/// (`mount.boxfs SOURCE MOUNTPOINT -o ...`, returning once ready). `unmount()` is idempotent and also
/// runs from `deinit`, so a failing test never leaves a mount behind; it waits for the daemon to exit.
public final class MountFixture: Sendable {
    public let mountpoint: URL
    public let boxsim: BoxSimProcess
    /// What `mount.boxfs` wrote to stderr while mounting (a start without Box says so there).
    public let mountOutput: String
    private let mounted = Mutex(true)

    private init(mountpoint: URL, boxsim: BoxSimProcess, mountOutput: String = "") {
        self.mountpoint = mountpoint
        self.boxsim = boxsim
        self.mountOutput = mountOutput
    }

    deinit { unmount() }

    /// The boxfs binary: `$BOXFS_BIN`, else `boxfs` beside boxsim.
    public static func locateBinary() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["BOXFS_BIN"], !path.isEmpty { return URL(fileURLWithPath: path) }
        let candidate = try BoxSimProcess.locateBinary().deletingLastPathComponent().appendingPathComponent("boxfs")
        guard FileManager.default.isExecutableFile(atPath: candidate.path) else { throw MountFixtureError.binaryNotFound(candidate.path) }
        return candidate
    }

    /// Runs `mount.boxfs` with the given words and environment, as a user would; returns its result.
    public static func runMount(
        source: String, mountpoint: String, options: [String], token: String?, extraEnvironment: [String: String] = [:]
    ) throws -> CommandResult {
        let binary = try locateBinary()
        var arguments = [binary.path, "mount", source, mountpoint]
        if !options.isEmpty { arguments += ["-o", options.joined(separator: ",")] }
        var environment = extraEnvironment
        environment["BOX_DEVELOPER_TOKEN"] = token ?? ""
        return try Shell.run(arguments, environment: environment, timeout: 60)
    }

    /// Mounts `source` of `boxsim` on a new temp folder with the boxsim endpoint and its developer token.
    /// `endpoint`: where the mount reaches boxsim, when not at its own URL (a `CuttableProxy` in front of it).
    public static func mount(
        _ boxsim: BoxSimProcess, source: String = "box:", options: [String] = [], environment: [String: String] = [:],
        endpoint: String? = nil
    ) throws -> MountFixture {
        let mountpoint = FileManager.default.temporaryDirectory.appendingPathComponent("boxfs-mnt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: mountpoint, withIntermediateDirectories: true)
        // Each mount gets its own block cache unless the test chooses one, so no test sees another's blocks.
        var options = options
        if !options.contains(where: { $0.hasPrefix("cache_dir=") || $0 == "cache=off" }) {
            options.append("cache_dir=\(mountpoint.path)-cache")
        }
        let result = try runMount(
            source: source, mountpoint: mountpoint.path, options: ["endpoint=\(endpoint ?? boxsim.baseURL)"] + options,
            token: boxsim.developerToken, extraEnvironment: environment)
        guard result.succeeded else {
            try? FileManager.default.removeItem(at: mountpoint)
            throw MountFixtureError.mountFailed(status: result.status, stderr: result.stderr)
        }
        return MountFixture(mountpoint: mountpoint, boxsim: boxsim, mountOutput: result.stderr)
    }

    public func path(_ relative: String) -> String { mountpoint.appendingPathComponent(relative).path }

    /// Whether the kernel lists this mount in /proc/mounts.
    public var isMounted: Bool { Self.isMounted(mountpoint.path) }

    public static func isMounted(_ path: String) -> Bool {
        let mounts = (try? String(contentsOfFile: "/proc/mounts", encoding: .utf8)) ?? ""
        return mounts.split(separator: "\n").contains { $0.split(separator: " ").dropFirst().first.map(String.init) == path }
    }

    /// Process ids of boxfs daemons serving `path` (found by their command line).
    public static func daemonPIDs(for path: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { name -> Int32? in
            guard let pid = Int32(name), pid != getpid(),
                let data = FileManager.default.contents(atPath: "/proc/\(name)/cmdline")
            else { return nil }
            let words = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return words.contains(path) && words.contains("-f") && words.contains(where: { $0.hasSuffix("boxfs") }) ? pid : nil
        }
    }

    /// Unmounts (`fusermount3 -u`, then lazily if busy) and waits up to 10 s for the daemon to exit.
    public func unmount() {
        let wasMounted = mounted.withLock { value in defer { value = false }; return value }
        guard wasMounted else { return }
        let path = mountpoint.path
        if (try? Shell.run(["fusermount3", "-u", path], timeout: 20))?.succeeded != true, Self.isMounted(path) {
            _ = try? Shell.run(["fusermount3", "-u", "-z", path], timeout: 20)
        }
        let deadline = Date().addingTimeInterval(10)
        while !Self.daemonPIDs(for: path).isEmpty, Date() < deadline { usleep(20_000) }
        for pid in Self.daemonPIDs(for: path) { kill(pid, SIGKILL) }
        try? FileManager.default.removeItem(at: mountpoint)
        try? FileManager.default.removeItem(atPath: path + "-cache")
    }
}
