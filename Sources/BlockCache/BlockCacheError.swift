#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one error type of the block cache. Only `BlockCache.init` lets it escape: once a cache is
/// open, failed writes are dropped and failed reads are misses (the cache is best-effort).
public enum BlockCacheError: Error, Equatable, CustomStringConvertible {
    /// A system call failed: the operation, the path it was applied to, and `errno`.
    case io(operation: String, path: String, errno: Int32)
    /// A block file exists but does not hold what its name promises (bad checksum, key or length).
    case invalidBlock(path: String, reason: String)
    /// Another `BlockCache` (in this or another process) already uses the directory.
    case directoryInUse(path: String)
    /// The arguments given to `init` cannot make a working cache.
    case invalidConfiguration(String)

    public var description: String {
        switch self {
        case .io(let operation, let path, let code):
            return "\(operation) \(path): \(String(cString: strerror(code))) (errno \(code))"
        case .invalidBlock(let path, let reason):
            return "invalid cache block \(path): \(reason)"
        case .directoryInUse(let path):
            return "cache directory \(path) is in use by another boxfs cache"
        case .invalidConfiguration(let message):
            return "invalid block cache configuration: \(message)"
        }
    }
}
