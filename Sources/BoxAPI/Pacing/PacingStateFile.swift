import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

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
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return nil }
        self.path = path
        self.descriptor = Mutex(fd)
    }

    deinit { descriptor.withLock { _ = close($0) } }

    /// Runs `body` on the state under the file's lock and writes back what it changed; nil, without running
    /// it, when another process holds the lock.
    public func update<R: Sendable>(_ body: (inout PacingState) -> R) -> R? {
        descriptor.withLock { fd -> R? in
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return nil }
            defer { flock(fd, LOCK_UN) }
            let before = Self.read(fd)
            var state = PacingState(decoding: before)
            let result = body(&state)
            let after = state.encoded()
            if after != before { Self.write(after, to: fd) }
            return result
        }
    }

    private static func read(_ fd: Int32) -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(bytes.count)) }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func write(_ text: String, to fd: Int32) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }
            guard count > 0 else { return }
            offset += count
        }
        _ = ftruncate(fd, off_t(bytes.count))
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
