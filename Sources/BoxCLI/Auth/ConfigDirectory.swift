import Foundation
import SystemCalls

/// Where boxfs keeps profiles and tokens: `$BOXFS_CONFIG_DIR`, else `$XDG_CONFIG_HOME/boxfs`, else
/// `~/.config/boxfs`. Profiles are `profiles/NAME.toml`, tokens `tokens/NAME.json` (both mode 0600,
/// the folders 0700).
struct ConfigDirectory: Sendable {
    static let environmentKey = "BOXFS_CONFIG_DIR"
    /// The profile used when none is named (`default` unless `$BOXFS_PROFILE` says otherwise).
    static let profileEnvironmentKey = "BOXFS_PROFILE"

    let path: String

    static func current(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> ConfigDirectory {
        if let explicit = environment[environmentKey], !explicit.isEmpty { return ConfigDirectory(path: explicit) }
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") { return ConfigDirectory(path: xdg + "/boxfs") }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return ConfigDirectory(path: home + "/.config/boxfs")
    }

    static func defaultProfileName(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        environment[profileEnvironmentKey].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
    }

    func profilePath(_ name: String) -> String { path + "/profiles/" + name + ".toml" }
    func tokenPath(_ name: String) -> String { path + "/tokens/" + name + ".json" }

    func profileNames() -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: path + "/profiles")) ?? []
        return files.filter { $0.hasSuffix(".toml") }.map { String($0.dropLast(5)) }.sorted()
    }

    /// Checks a profile name: it becomes a file name.
    static func validate(profileName name: String) throws {
        guard !name.isEmpty, name.count <= 64, !name.hasPrefix("."),
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) })
        else {
            throw StartupError(description: "'\(name)' is not a valid profile name (letters, digits, - _ . only)")
        }
    }

    /// Writes `contents` to `path` with mode 0600 via a temp file and rename, creating folders 0700.
    static func writePrivately(_ contents: String, to path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let temp = path + ".tmp-\(getpid())"
        let fd: Int32
        do throws(SystemCallError) { fd = try Syscall.open(temp, O_WRONLY | O_CREAT | O_TRUNC) } catch {
            throw StartupError(description: "cannot write \(path): \(error.reason)")
        }
        do throws(SystemCallError) {
            defer { Syscall.close(fd) }
            try Syscall.writeAll(fd, Data(contents.utf8), path: temp)
        } catch {
            try? Syscall.unlink(temp)
            throw StartupError(description: "cannot write \(path)")
        }
        do throws(SystemCallError) { try Syscall.rename(temp, to: path) } catch {
            try? Syscall.unlink(temp)
            throw StartupError(description: "cannot write \(path)")
        }
    }
}
