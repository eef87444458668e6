import Foundation
import SystemCalls

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
        let data = try JSONEncoder().encode(token), path = self.path
        // The fsync waits on the disk: off the cooperative pool.
        try await Syscall.offThePool { () throws(AuthError) in try Self.replace(path, with: data) }
    }

    /// Replaces the file at `path` with `data` (`Syscall.replaceFile`: 0600, synced, renamed over it).
    private static func replace(_ path: String, with data: Data) throws(AuthError) {
        do throws(SystemCallError) { try Syscall.replaceFile(path, with: data) } catch {
            throw AuthError(.store, "cannot write the token file \(path): \(error.reason)")
        }
    }

    public func clear() async throws {
        do throws(SystemCallError) { try Syscall.unlink(path) } catch {
            throw AuthError(.store, "cannot remove the token file \(path): \(error.reason)")
        }
    }

    public func withExclusiveAccess<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try makeDirectory()
        let fd: Int32
        do throws(SystemCallError) { fd = try Syscall.open(lockPath, O_RDWR | O_CREAT) } catch {
            throw AuthError(.store, "cannot open the lock file \(lockPath): \(error.reason)")
        }
        defer { Syscall.close(fd) }  // closing releases the lock
        let deadline = Date().addingTimeInterval(lockTimeout)
        while try !locked(fd) {
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

    /// Takes the lock file's `flock` if free; false while another process holds it.
    private func locked(_ fd: Int32) throws -> Bool {
        do throws(SystemCallError) { return try Syscall.lockExclusively(fd, path: lockPath) } catch {
            throw AuthError(.store, "cannot lock \(lockPath): \(error.reason)")
        }
    }
}
