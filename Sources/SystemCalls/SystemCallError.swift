import Glibc

/// A system call that failed: which call, the file it was applied to, and the `errno` it set.
public struct SystemCallError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The call, e.g. `open`, `pread`, `rename`.
    public let operation: String
    /// The path of the file (or what the descriptor stands for, when it has no path).
    public let path: String
    public let errno: Int32

    public init(operation: String, path: String, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    /// The system's words for `errno` ("No space left on device").
    public var reason: String { String(cString: strerror(errno)) }

    public var description: String { "\(operation) \(path): \(reason) (errno \(errno))" }
}
