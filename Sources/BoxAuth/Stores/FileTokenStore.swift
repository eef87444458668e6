import Foundation

/// The token as JSON in one file (mode 0600), shared safely by several processes:
/// - writes go to a temp file in the same folder, then `rename` over the old one (atomic);
/// - `withExclusiveAccess` holds `flock(LOCK_EX)` on a sibling `<file>.lock` (not on the data file,
///   which `rename` replaces), polling so no concurrency thread blocks while another process refreshes.
public struct FileTokenStore: TokenStore {
    public let path: String
    public var lockPath: String { path + ".lock" }
    /// How long to wait for another process's refresh before giving up.
    public let lockTimeout: Double

    public init(path: String, lockTimeout: Double = 60) {
        self.path = path
        self.lockTimeout = lockTimeout
    }

    public func read() async throws -> TokenInfo? {
        guard let data = FileManager.default.contents(atPath: path) else {
            if FileManager.default.fileExists(atPath: path) { throw AuthError(.store, "cannot read the token file \(path)") }
            return nil
        }
        if data.isEmpty { return nil }
        do {
            return try JSONDecoder().decode(TokenInfo.self, from: data)
        } catch {
            throw AuthError(.store, "the token file \(path) is damaged; run `boxfs login` again")
        }
    }

    public func write(_ token: TokenInfo) async throws {
        try makeDirectory()
        let data = try JSONEncoder().encode(token)
        let temp = path + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw AuthError(.store, "cannot write the token file \(path): \(Self.errnoText())") }
        let written = data.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == data.count, synced, rename(temp, path) == 0 else {
            let reason = Self.errnoText()
            unlink(temp)
            throw AuthError(.store, "cannot write the token file \(path): \(reason)")
        }
    }

    public func clear() async throws {
        if unlink(path) != 0, errno != ENOENT {
            throw AuthError(.store, "cannot remove the token file \(path): \(Self.errnoText())")
        }
    }

    public func withExclusiveAccess<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try makeDirectory()
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw AuthError(.store, "cannot open the lock file \(lockPath): \(Self.errnoText())") }
        defer { close(fd) }  // closing releases the lock
        let deadline = Date().addingTimeInterval(lockTimeout)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                throw AuthError(.store, "cannot lock \(lockPath): \(Self.errnoText())")
            }
            guard Date() < deadline else {
                throw AuthError(.store, "another process has held \(lockPath) for \(Int(lockTimeout)) s")
            }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        return try await body()
    }

    private func makeDirectory() throws {
        let directory = (path as NSString).deletingLastPathComponent
        guard !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) else { return }
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw AuthError(.store, "cannot create the folder \(directory) for the token file")
        }
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}
