import Foundation

/// The outcome of one command run by a test.
public struct CommandResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    public var succeeded: Bool { status == 0 }
}

/// Runs ordinary tools (`ls`, `cp`, `grep`, ...) as a user would, with a time limit so a hung
/// filesystem fails the test instead of hanging the run.
public enum Shell {
    @discardableResult
    public static func run(
        _ arguments: [String], environment: [String: String] = [:], timeout: Double = 120
    ) throws -> CommandResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["LC_ALL"] = "C"
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("shell-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let outURL = work.appendingPathComponent("out"), errURL = work.appendingPathComponent("err")
        FileManager.default.createFile(atPath: outURL.path, contents: nil)
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try? out.close()
        try? err.close()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() > deadline {
                process.terminate()
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                return CommandResult(status: -1, stdout: "", stderr: "timed out after \(timeout) s: \(arguments.joined(separator: " "))")
            }
            usleep(10_000)
        }
        return CommandResult(
            status: process.terminationStatus,
            stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    }

    /// Runs a command line through `bash -c` (for pipes and redirections).
    @discardableResult
    public static func bash(_ script: String, environment: [String: String] = [:], timeout: Double = 120) throws -> CommandResult {
        try run(["bash", "-c", script], environment: environment, timeout: timeout)
    }
}
