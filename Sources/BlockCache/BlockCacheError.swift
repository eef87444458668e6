#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The block cache's own errors. Only `BlockCache.init` lets errors escape (these, or a `SystemCallError`
/// naming the call, path and errno): once a cache is open, failed writes are dropped and failed reads are
/// misses (the cache is best-effort).
public enum BlockCacheError: Error, Equatable, CustomStringConvertible {
    /// A block file exists but does not hold what its name promises (bad checksum, key or length).
    case invalidBlock(path: String, reason: String)
    /// Another `BlockCache` (in this or another process) already uses the directory.
    case directoryInUse(path: String)
    /// The arguments given to `init` cannot make a working cache.
    case invalidConfiguration(String)

    public var description: String {
        switch self {
        case .invalidBlock(let path, let reason):
            return "invalid cache block \(path): \(reason)"
        case .directoryInUse(let path):
            return "cache directory \(path) is in use by another boxfs cache"
        case .invalidConfiguration(let message):
            return "invalid block cache configuration: \(message)"
        }
    }
}
