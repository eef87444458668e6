import Foundation
import Synchronization

/// Why a boxsim process could not be started.
public enum BoxSimProcessError: Error, CustomStringConvertible {
    case binaryNotFound(String)
    case exitedBeforeReady(status: Int32, stderr: String)
    case notReady(seconds: Double, stderr: String)

    public var description: String {
        switch self {
        case .binaryNotFound(let path):
            "boxsim binary not found at \(path) (build it with `swift build --product boxsim` or set BOXSIM_BIN)"
        case .exitedBeforeReady(let status, let stderr):
            "boxsim exited with status \(status) before it was ready; stderr:\n\(stderr)"
        case .notReady(let seconds, let stderr):
            "boxsim was not ready after \(seconds) s; stderr:\n\(stderr)"
        }
    }
}

/// A real `boxsim serve` process for tests. Started with `start(...)`, stopped with `stop()` (also on deinit):
/// SIGTERM, then SIGKILL if it has not exited within `stopGracePeriod`.
public final class BoxSimProcess: Sendable {
    public static let defaultDeveloperToken = "boxsim-test-developer-token"
    public static let stopGracePeriod: Double = 5

    /// e.g. `http://127.0.0.1:41234`; the API is at `baseURL + "/2.0"`.
    public let baseURL: String
    /// boxsim's `--data` directory (SQLite store, blobs, `requests.jsonl`).
    public let dataDirectory: URL
    public let developerToken: String
    /// Holds the ready file and boxsim's stdout/stderr (`stdout.log`, `stderr.log`).
    public let workDirectory: URL
    public let pid: Int32
    /// Directories deleted by `stop()`.
    private let ownedDirectories: [URL]
    /// The Process object, nil once stopped. Guarded by the mutex.
    private let running: Mutex<Process?>

    private init(baseURL: String, dataDirectory: URL, developerToken: String, workDirectory: URL,
                 process: Process, ownedDirectories: [URL]) {
        self.baseURL = baseURL
        self.dataDirectory = dataDirectory
        self.developerToken = developerToken
        self.workDirectory = workDirectory
        self.pid = process.processIdentifier
        self.ownedDirectories = ownedDirectories
        self.running = Mutex(process)
    }

    deinit { stop() }

    /// Starts boxsim on a free port and waits (up to `timeout` seconds) until it has written its ready file.
    /// - Parameters:
    ///   - seed: a local tree imported into the admin's root folder (see `SeedTree`).
    ///   - dataDirectory: reuse an existing data directory (e.g. to test a restart); it is never deleted here.
    ///     Without it a temp data directory is made and deleted by `stop()` unless `keepDataDirectory`.
    ///   - control: pass `--control` (the `/_control` API).
    public static func start(seed: URL? = nil, developerToken: String = defaultDeveloperToken,
                             extraArgs: [String] = [], dataDirectory: URL? = nil, keepDataDirectory: Bool = false,
                             control: Bool = true, timeout: Double = 60) async throws -> BoxSimProcess {
        let binary = try locateBinary()
        let fileManager = FileManager.default
        let work = fileManager.temporaryDirectory.appendingPathComponent("boxsim-run-\(UUID().uuidString)")
        try fileManager.createDirectory(at: work, withIntermediateDirectories: true)
        let data = dataDirectory ?? work.appendingPathComponent("data")
        var owned = [work]
        if dataDirectory == nil && keepDataDirectory { owned = [] }
        let readyFile = work.appendingPathComponent("ready")

        var arguments = ["serve", "--data", data.path, "--port", "0", "--ready-file", readyFile.path,
                         "--developer-token", developerToken, "--exit-with-parent"]
        if let seed { arguments += ["--seed", seed.path] }
        if control { arguments.append("--control") }
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments + extraArgs
        let stdoutURL = work.appendingPathComponent("stdout.log")
        let stderrURL = work.appendingPathComponent("stderr.log")
        _ = fileManager.createFile(atPath: stdoutURL.path, contents: nil)
        _ = fileManager.createFile(atPath: stderrURL.path, contents: nil)
        let stdoutHandle = try FileHandle(forWritingTo: stdoutURL)
        let stderrHandle = try FileHandle(forWritingTo: stderrURL)
        process.standardOutput = stdoutHandle
        process.standardError = stderrHandle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // The child has its own copies now.
        try? stdoutHandle.close()
        try? stderrHandle.close()

        let started = Date()
        while true {
            if let text = try? String(contentsOf: readyFile, encoding: .utf8),
               case let url = text.trimmingCharacters(in: .whitespacesAndNewlines), !url.isEmpty {
                return BoxSimProcess(baseURL: url, dataDirectory: data, developerToken: developerToken,
                                     workDirectory: work, process: process, ownedDirectories: owned)
            }
            if !process.isRunning {
                let stderr = (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? ""
                try? fileManager.removeItem(at: work)
                throw BoxSimProcessError.exitedBeforeReady(status: process.terminationStatus, stderr: stderr)
            }
            if Date().timeIntervalSince(started) > timeout {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                let stderr = (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? ""
                try? fileManager.removeItem(at: work)
                throw BoxSimProcessError.notReady(seconds: timeout, stderr: stderr)
            }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
    }

    /// The boxsim binary: `$BOXSIM_BIN`, else `boxsim` beside the test bundle (e.g. `.build/debug/`).
    public static func locateBinary() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["BOXSIM_BIN"], !path.isEmpty {
            guard FileManager.default.isExecutableFile(atPath: path) else { throw BoxSimProcessError.binaryNotFound(path) }
            return URL(fileURLWithPath: path)
        }
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = bundle.deletingLastPathComponent()
        // On macOS the test binary sits inside `X.xctest/Contents/MacOS/`.
        while directory.path.contains(".xctest") { directory = directory.deletingLastPathComponent() }
        let candidate = directory.appendingPathComponent("boxsim")
        guard FileManager.default.isExecutableFile(atPath: candidate.path) else {
            throw BoxSimProcessError.binaryNotFound(candidate.path)
        }
        return candidate
    }

    /// Whether the process is still running.
    public var isRunning: Bool { running.withLock { $0?.isRunning ?? false } }

    /// Stops boxsim (SIGTERM, then SIGKILL after `stopGracePeriod`) and deletes the temp directories it made.
    /// Safe to call more than once.
    public func stop() {
        guard let process = running.withLock({ current -> Process? in
            defer { current = nil }
            return current
        }) else { return }
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            let deadline = Date().addingTimeInterval(Self.stopGracePeriod)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        for directory in ownedDirectories { try? FileManager.default.removeItem(at: directory) }
    }

    /// The request log so far (every request whose response has been sent).
    public func requestLog() throws -> [LoggedRequest] {
        let url = dataDirectory.appendingPathComponent("requests.jsonl")
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        return try LoggedRequest.parseLog(Data(contentsOf: url))
    }

    /// What boxsim has written to stderr.
    public func standardError() -> String {
        (try? String(contentsOf: workDirectory.appendingPathComponent("stderr.log"), encoding: .utf8)) ?? ""
    }
}
