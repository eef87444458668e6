import Foundation
import SystemCalls

/// Files that hold a secret (a token, a shared link's password). Like ssh keys, a file that others may
/// read or write is refused, with the command that fixes it; the secret never appears in a message.
enum SecretFile {
    static func text(of path: String, what: String) throws -> String {
        guard let status = try? Syscall.status(path), let data = FileManager.default.contents(atPath: path) else {
            throw StartupError(description: "cannot read the \(what) \(path)")
        }
        guard status.st_mode & 0o077 == 0 else {
            throw StartupError(description: "the \(what) \(path) is accessible by others "
                + "(mode \(String(status.st_mode & 0o777, radix: 8))): run chmod 600 \(path)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
