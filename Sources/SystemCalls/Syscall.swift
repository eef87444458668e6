import Glibc

/// The one wrapper over the POSIX file calls every target makes: each call is retried while it fails
/// with `EINTR`, reads and writes are looped until done (`Syscall+Transfers`), and a failure throws
/// `SystemCallError` with the call, the path and `errno`, so no caller reads `errno` itself.
///
/// Calls that may block on a disk (`fsync` above all) are synchronous: callers make them from their
/// own threads or queues, never from Swift's cooperative pool.
public enum Syscall {
    /// Runs `call` until it returns anything but -1 with `EINTR`; -1 with another errno throws.
    @inlinable
    public static func retrying<Result: BinaryInteger>(
        _ operation: String, _ path: String, _ call: () -> Result
    ) throws(SystemCallError) -> Result {
        while true {
            let result = call()
            if result >= 0 { return result }
            let code = errno
            if code != EINTR { throw SystemCallError(operation: operation, path: path, errno: code) }
        }
    }

    /// Opens `path` (always with `O_CLOEXEC`: no descriptor leaks into a program started later).
    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o600) throws(SystemCallError) -> Int32 {
        try retrying("open", path) { Glibc.open(path, flags | O_CLOEXEC, mode) }
    }

    /// Closes a descriptor. Never retried: on Linux the descriptor is gone even when `close` reports
    /// `EINTR`, and closing it again could close one another thread just opened.
    public static func close(_ descriptor: Int32) {
        _ = Glibc.close(descriptor)
    }

    /// `fstat`.
    public static func status(_ descriptor: Int32, path: String) throws(SystemCallError) -> stat {
        var info = stat()
        _ = try retrying("fstat", path) { fstat(descriptor, &info) }
        return info
    }

    /// `stat`, following symbolic links.
    public static func status(_ path: String) throws(SystemCallError) -> stat {
        var info = stat()
        _ = try retrying("stat", path) { stat(path, &info) }
        return info
    }

    /// The size of the open file.
    public static func size(_ descriptor: Int32, path: String) throws(SystemCallError) -> Int64 {
        Int64(try status(descriptor, path: path).st_size)
    }

    /// `fsync`: blocks until the file's data reached the disk. Never call it from the cooperative pool.
    public static func sync(_ descriptor: Int32, path: String) throws(SystemCallError) {
        _ = try retrying("fsync", path) { fsync(descriptor) }
    }

    /// `ftruncate`.
    public static func truncate(_ descriptor: Int32, to size: Int64, path: String) throws(SystemCallError) {
        _ = try retrying("ftruncate", path) { ftruncate(descriptor, off_t(size)) }
    }

    /// `rename`; the error names the target.
    public static func rename(_ from: String, to: String) throws(SystemCallError) {
        _ = try retrying("rename", to) { Glibc.rename(from, to) }
    }

    /// Removes a file; one already gone is not an error.
    public static func unlink(_ path: String) throws(SystemCallError) {
        do throws(SystemCallError) {
            _ = try retrying("unlink", path) { Glibc.unlink(path) }
        } catch let failure where failure.errno == ENOENT {
            return
        }
    }

    /// Creates a directory; one that exists is not an error.
    public static func makeDirectory(_ path: String, mode: mode_t = 0o700) throws(SystemCallError) {
        do throws(SystemCallError) {
            _ = try retrying("mkdir", path) { mkdir(path, mode) }
        } catch let failure where failure.errno == EEXIST {
            return
        }
    }

    /// Takes an exclusive `flock` without waiting: false when another descriptor holds it.
    public static func lockExclusively(_ descriptor: Int32, path: String) throws(SystemCallError) -> Bool {
        do throws(SystemCallError) {
            _ = try retrying("flock", path) { flock(descriptor, LOCK_EX | LOCK_NB) }
            return true
        } catch let failure where failure.errno == EWOULDBLOCK {
            return false
        }
    }

    /// Lets go of a `flock` (errors are not reported: the lock goes with the descriptor anyway).
    public static func unlock(_ descriptor: Int32, path: String) {
        _ = try? retrying("flock", path) { flock(descriptor, LOCK_UN) }
    }
}
