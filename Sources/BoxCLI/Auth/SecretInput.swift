import Foundation

/// Reads secrets from where `ps` cannot see them: a file, an environment variable, or the terminal
/// with echo off. Never from command-line arguments.
enum SecretInput {
    static let clientSecretEnvironmentKey = "BOX_CLIENT_SECRET"

    static func clientSecret(file: String?, existing: String?) throws -> String {
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw StartupError(description: "cannot read the client secret file \(file)")
            }
            let secret = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !secret.isEmpty else { throw StartupError(description: "the client secret file \(file) is empty") }
            return secret
        }
        if let secret = ProcessInfo.processInfo.environment[clientSecretEnvironmentKey], !secret.isEmpty { return secret }
        if let existing, !existing.isEmpty { return existing }
        guard isatty(0) != 0 else {
            throw StartupError(
                description: "no client secret: use --client-secret-file PATH or set \(clientSecretEnvironmentKey)")
        }
        return try prompt("Client secret: ")
    }

    /// Prompts on the terminal without echoing what is typed.
    static func prompt(_ text: String) throws -> String {
        FileHandle.standardError.write(Data(text.utf8))
        var saved = termios()
        tcgetattr(0, &saved)
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(0, TCSANOW, &silent)
        defer {
            tcsetattr(0, TCSANOW, &saved)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        guard let line = readLine(), !line.isEmpty else { throw StartupError(description: "no client secret given") }
        return line
    }
}
