import Glibc

/// The calls on descriptors that move no data: flags, times, copies, pipes, temporary files, readiness.
/// Each retried on `EINTR` and throwing `SystemCallError`, as the rest of `Syscall`.
extension Syscall {
    /// The descriptor's status flags (`fcntl(F_GETFL)`: `O_DIRECT`, `O_APPEND`, ...).
    public static func statusFlags(_ descriptor: Int32, path: String) throws(SystemCallError) -> Int32 {
        try retrying("fcntl", path) { fcntl(descriptor, F_GETFL) }
    }

    /// Sets the descriptor's status flags (`fcntl(F_SETFL)`).
    public static func setStatusFlags(_ descriptor: Int32, _ flags: Int32, path: String) throws(SystemCallError) {
        _ = try retrying("fcntl", path) { fcntl(descriptor, F_SETFL, flags) }
    }

    /// Closes the descriptor when a program is executed (`FD_CLOEXEC`).
    public static func setCloseOnExec(_ descriptor: Int32, path: String) throws(SystemCallError) {
        _ = try retrying("fcntl", path) { fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
    }

    /// Sets the file's access and modification times to now (`futimens`).
    public static func touch(_ descriptor: Int32, path: String) throws(SystemCallError) {
        _ = try retrying("futimens", path) { futimens(descriptor, nil) }
    }

    /// A new descriptor for the same open file (`dup`).
    public static func duplicate(_ descriptor: Int32, path: String) throws(SystemCallError) -> Int32 {
        try retrying("dup", path) { dup(descriptor) }
    }

    /// Makes `target` a copy of `descriptor` (`dup2`), closing what `target` was.
    public static func duplicate(_ descriptor: Int32, onto target: Int32, path: String) throws(SystemCallError) {
        _ = try retrying("dup2", path) { dup2(descriptor, target) }
    }

    /// A pipe's two ends (`pipe`; no flags, as a child process may inherit them).
    public static func pipe() throws(SystemCallError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        _ = try retrying("pipe", "a new pipe") { Glibc.pipe(&ends) }
        return (ends[0], ends[1])
    }

    /// Creates and opens a new file from `template`, whose last six characters must be `XXXXXX` (`mkstemp`):
    /// its descriptor and path.
    public static func makeTemporaryFile(_ template: String) throws(SystemCallError) -> (descriptor: Int32, path: String) {
        var bytes = Array(template.utf8CString)
        let descriptor = try retrying("mkstemp", template) { mkstemp(&bytes) }
        return (descriptor, String(decoding: bytes.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// Waits up to `milliseconds` for the descriptor to be readable (`poll`); false when the time ran out.
    /// A signal ends the wait early (it is not retried, so the caller's own deadline stays in charge).
    public static func waitReadable(_ descriptor: Int32, milliseconds: Int32, path: String) throws(SystemCallError) -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, milliseconds)
        if ready < 0 {
            let code = errno
            if code == EINTR { return false }
            throw SystemCallError(operation: "poll", path: path, errno: code)
        }
        return ready > 0
    }

    /// The file system holding `path` (`statvfs`).
    public static func fileSystemStatus(_ path: String) throws(SystemCallError) -> statvfs {
        var info = statvfs()
        _ = try retrying("statvfs", path) { statvfs(path, &info) }
        return info
    }
}
