import Foundation
import XCTest

/// A Unix user made for one test (`useradd`), to run commands as someone other than root
/// (`runuser -u NAME -- ...`); removed by `remove()`.
public struct LocalUser: Sendable {
    public let name: String
    public let uid: UInt32

    /// Creates the user, or throws XCTSkip where users cannot be made (not root, no useradd).
    public static func make(_ prefix: String = "boxfst") throws -> LocalUser {
        guard geteuid() == 0 else { throw XCTSkip("making a user needs root") }
        let name = prefix + String(UUID().uuidString.prefix(6)).lowercased()
        let made = try Shell.run(["useradd", "--no-create-home", "--shell", "/bin/sh", name])
        guard made.succeeded else { throw XCTSkip("useradd is not usable here: \(made.stderr)") }
        let id = try Shell.run(["id", "-u", name])
        guard let uid = UInt32(id.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            _ = try? Shell.run(["userdel", name])
            throw XCTSkip("no uid for \(name)")
        }
        // A clone under a folder only its owner may enter (a 0700 home) keeps other users from the binaries.
        if let binary = try? MountFixture.locateBinary(),
           try Shell.run(["runuser", "-u", name, "--", "test", "-x", binary.path]).status != 0 {
            _ = try? Shell.run(["userdel", name])
            throw XCTSkip("\(binary.path) cannot be run by another user (a parent folder is closed to others)")
        }
        return LocalUser(name: name, uid: uid)
    }

    /// Runs `arguments` as this user, with `environment` added.
    public func run(_ arguments: [String], environment: [String: String] = [:], timeout: Double = 60) throws -> CommandResult {
        let assignments = environment.map { "\($0.key)=\($0.value)" }
        return try Shell.run(["runuser", "-u", name, "--", "env"] + assignments + arguments, timeout: timeout)
    }

    /// A folder owned by this user (mode 0700).
    public func makeFolder(_ prefix: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        chown(url.path, uid, gid_t(uid == 0 ? 0 : getgid(of: name)))
        chmod(url.path, 0o700)
        return url
    }

    private func getgid(of user: String) -> UInt32 {
        (try? Shell.run(["id", "-g", user])).flatMap { UInt32($0.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
    }

    public func remove() {
        _ = try? Shell.run(["pkill", "-KILL", "-u", name])
        _ = try? Shell.run(["userdel", name])
    }
}
