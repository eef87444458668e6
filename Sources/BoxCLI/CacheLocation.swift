import Crypto
import Foundation

/// Where a mount keeps its state on disk: one folder per account and server, so ids from
/// different servers or users never meet. The block cache and the write-back journal live there.
enum CacheLocation {
    /// `<cache_dir>/<sha256(endpoint + user id) prefix>`, created 0700.
    static func accountDirectory(options: MountOptions, endpoint: String, userID: String) -> URL {
        let base = base(options: options)
        let account = SHA256.hash(data: Data("\(endpoint)\n\(userID)".utf8)).prefix(8)
            .map { String(format: "%02x", $0) }.joined()
        try? FileManager.default.createDirectory(at: base, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return base.appendingPathComponent(account)
    }

    /// The log of a background daemon where syslog is missing: `<cache_dir>/logs/<mountpoint>.log`
    /// (the path's slashes as dashes, e.g. `home-me-Box.log`).
    static func defaultLogFile(options: MountOptions, mountpoint: String) -> String {
        let logs = base(options: options).appendingPathComponent("logs")
        try? FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let name = mountpoint.split(separator: "/").joined(separator: "-")
        return logs.appendingPathComponent((name.isEmpty ? "root" : name) + ".log").path
    }

    /// `cache_dir`, or its default.
    static func base(options: MountOptions) -> URL {
        options.cacheDirectory.map { URL(fileURLWithPath: $0) } ?? defaultBase()
    }

    static func defaultBase() -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return URL(fileURLWithPath: xdg).appendingPathComponent("boxfs") }
        let home = environment["HOME"].map { URL(fileURLWithPath: $0) } ?? FileManager.default.homeDirectoryForCurrentUser
        return home.appendingPathComponent(".cache/boxfs")
    }
}
