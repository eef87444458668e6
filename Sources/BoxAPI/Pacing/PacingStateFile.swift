import Foundation
import Synchronization
import SystemCalls

/// Where the processes pacing one Box account keep their `PacingState`: a small file per account, read and
/// written whole under an exclusive `flock`.
///
/// Why a file under `flock`: the mounts of an account are separate daemons (and `boxfs` commands), so the
/// bucket must live outside any of them; a lock on a file is released by the kernel when its holder dies, so a
/// killed daemon never leaves the bucket locked, and the file keeps what it spent (a mount started in its
/// place still counts those calls). Nothing waits on the lock or the disk: the lock is only tried
/// (`LOCK_NB`; a busy lock is tried again after an async sleep by `Pacer`), held for one read and one write of
/// a few kilobytes, and never synced (the file is kept in the user's runtime folder, memory, where there is
/// one; losing it costs at most a minute of counts, which the retry policy covers).
public final class PacingStateFile: Sendable {
    public let path: String
    /// The open file; the mutex keeps this process's tasks apart (a `flock` is shared by one open file's users).
    private let descriptor: Mutex<Int32>

    /// Opens (creating, 0600) the file at `path`, its folder created 0700; nil when it cannot be.
    public init?(path: String) {
        let folder = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        Self.removeStale(in: folder, except: (path as NSString).lastPathComponent)
        guard let fd = try? Syscall.open(path, O_RDWR | O_CREAT | O_CLOEXEC, mode: 0o600) else { return nil }
        self.path = path
        self.descriptor = Mutex(fd)
    }

    deinit { descriptor.withLock { Syscall.close($0) } }

    /// Runs `body` on the state under the file's lock and writes back what it changed; nil, without running
    /// it, when another process holds the lock.
    public func update<R: Sendable>(_ body: (inout PacingState) -> R) -> R? {
        descriptor.withLock { [path] fd -> R? in
            guard (try? Syscall.lockExclusively(fd, path: path)) == true else { return nil }
            defer { Syscall.unlock(fd, path: path) }
            let before = Self.read(fd, path: path)
            var state = PacingState(decoding: before)
            let result = body(&state)
            let after = state.encoded()
            if after != before { Self.write(after, to: fd, path: path) }
            return result
        }
    }

    /// The file's text; empty when it cannot be read (then the state starts afresh).
    private static func read(_ fd: Int32, path: String) -> String {
        guard let size = try? Syscall.size(fd, path: path),
            let data = try? Syscall.read(fd, count: Int(size), at: 0, path: path)
        else { return "" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Replaces the file's text (a failed write leaves counts a later update writes again).
    private static func write(_ text: String, to fd: Int32, path: String) {
        let data = Data(text.utf8)
        try? Syscall.writeAll(fd, data, at: 0, path: path)
        try? Syscall.truncate(fd, to: Int64(data.count), path: path)
    }

    /// Files of other accounts or servers untouched for a day: what they counted is long past (a file per
    /// server accumulates where servers come and go, such as boxsim's ports in tests). A file in use is rewritten
    /// at every call, so it is never that old.
    static func removeStale(in folder: String, except name: String, now: Date = Date()) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for other in names where other != name {
            let path = folder + "/" + other
            guard let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
                now.timeIntervalSince(modified) > 86_400
            else { continue }
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    /// The file of the account `userID` on the server `endpoint`: `$XDG_RUNTIME_DIR/boxfs/pacing/<hash>`
    /// (memory, gone at logout, as a minute's counts may be), else `$XDG_STATE_HOME/boxfs/pacing/<hash>`
    /// (`~/.local/state`). Not in `cache_dir`: mounts of one account with different cache folders share it.
    public static func path(endpoint: String, userID: String, environment: [String: String]) -> String {
        let base: String
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/"),
            FileManager.default.isWritableFile(atPath: runtime)
        {
            base = runtime + "/boxfs/pacing"
        } else if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            base = state + "/boxfs/pacing"
        } else {
            let home = environment["HOME"] ?? NSHomeDirectory()
            base = home + "/.local/state/boxfs/pacing"
        }
        return base + "/" + accountName(endpoint: endpoint, userID: userID)
    }

    /// `<user id>-<FNV-1a of the endpoint>`: readable, and apart for each server.
    static func accountName(endpoint: String, userID: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in endpoint.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        let safeID = userID.filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
        return "\(safeID.isEmpty ? "user" : safeID)-\(String(hash, radix: 16))"
    }
}
