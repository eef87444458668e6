import Foundation

/// A token from a command the user configures: the Linux form of the Box SDK's delegated auth closure
/// (and fetch-token block). The command runs through `/bin/sh -c` with the user's unique id as `$1`
/// (and in `BOXFS_UNIQUE_ID`); it prints either JSON `{"access_token": "...", "expires_in": 3600}` or two
/// lines, the token then its lifetime in seconds. Its stderr goes to boxfs's stderr (or log); the token
/// never appears in arguments.
public struct DelegatedCommandSource: TokenSource {
    public let command: String
    public let uniqueID: String
    public let timeout: Double

    public init(command: String, uniqueID: String, timeout: Double = 60) {
        self.command = command
        self.uniqueID = uniqueID
        self.timeout = timeout
    }

    public func fetchToken(previous: TokenInfo?) async throws -> TokenInfo {
        let obtainedAt = Date()
        let output = try await CommandRunner.run(
            ["/bin/sh", "-c", command + " \"$1\"", "boxfs-token-command", uniqueID],
            environment: ["BOXFS_UNIQUE_ID": uniqueID], timeout: timeout)
        guard output.status == 0 else {
            throw AuthError(.command, "the token command failed (exit status \(output.status))")
        }
        return try Self.parse(output.stdout, obtainedAt: obtainedAt)
    }

    static func parse(_ data: Data, obtainedAt: Date) throws -> TokenInfo {
        if let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
            guard let token = object["access_token"] as? String, !token.isEmpty else {
                throw AuthError(.command, "the token command printed JSON without access_token")
            }
            let lifetime = (object["expires_in"] as? NSNumber)?.doubleValue
            return TokenInfo(accessToken: token, expiresIn: lifetime, obtainedAt: obtainedAt)
        }
        let lines = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard let token = lines.first, !token.contains(" ") else {
            throw AuthError(.command, "the token command printed no token (expected a token line, then its lifetime)")
        }
        guard lines.count >= 2, let lifetime = Double(lines[1]), lifetime > 0 else {
            throw AuthError(.command, "the token command printed no lifetime in seconds on its second line")
        }
        return TokenInfo(accessToken: token, expiresIn: lifetime, obtainedAt: obtainedAt)
    }
}

/// Runs a helper command without blocking a Swift concurrency thread on its exit.
enum CommandRunner {
    struct Output: Sendable {
        var status: Int32
        var stdout: Data
    }

    static func run(_ arguments: [String], environment: [String: String], timeout: Double) async throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw AuthError(.command, "cannot start the token command: \(error.localizedDescription)")
        }
        let pid = process.processIdentifier
        let killer = Task {
            try await Task.sleep(nanoseconds: UInt64(timeout * 1_000_000_000))
            kill(pid, SIGKILL)
        }
        defer { killer.cancel() }
        let data = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: data)
            }
        }
        return Output(status: process.terminationStatus, stdout: data)
    }
}
