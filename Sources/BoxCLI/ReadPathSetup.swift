import BlockCache
import BoxAPI
import Crypto
import Foundation
import Logging
import Transfers

/// Builds the read path's block store: the disk cache (unless `cache=off`) and the fetcher.
enum ReadPathSetup {
    /// Bytes of fetched blocks kept in memory across all open files (read-ahead takes three quarters).
    /// Tests lower it with `BOXFS_TEST_READ_MEMORY` (bytes, at least 4 MiB), to go beyond it with a few readers.
    static var memoryCapacity: Int {
        let override = ProcessInfo.processInfo.environment["BOXFS_TEST_READ_MEMORY"].flatMap { Int($0) }
        return override.map { max($0, 4 << 20) } ?? 64 << 20
    }

    static func makeStore(options: MountOptions, endpoint: String, userID: String, client: BoxClient, logger: Logger) -> BlockStore {
        var disk: BlockCache?
        if options.cacheEnabled {
            let directory = CacheLocation.accountDirectory(options: options, endpoint: endpoint, userID: userID)
            do {
                try FileManager.default.createDirectory(
                    at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                let minimumFree = options.cacheMinimumFree ?? BlockCache.defaultMinimumFree(directory: directory)
                // cache_size holds for the whole cache_dir: other accounts' and servers' caches in it count.
                let sharing = SharedCacheDirectory.share(
                    base: CacheLocation.base(options: options), own: directory, limit: options.cacheSize)
                if sharing.trimmed > 0 { logger.info("trimmed \(sharing.trimmed) bytes of unused caches in cache_dir") }
                disk = try BlockCache(
                    directory: directory, capacity: BlockCache.capacity(withinDiskSpace: sharing.capacity),
                    minimumFree: minimumFree, pinCapacity: options.pinSize, logger: logger)
                logger.info("""
                    block cache at \(directory.path), limit \(sharing.capacity) bytes of cache_size \(options.cacheSize) \
                    (\(sharing.inUse) in use by other mounts, \(sharing.idle) kept by idle caches), keeping \(minimumFree) bytes free; \
                    \(disk?.pinnedBytes ?? 0) bytes pinned
                    """)
            } catch {
                logger.warning("block cache disabled: \(error)")
            }
        }
        // Streams ranges into blocks as they arrive and reuses a file's download location.
        return BlockStore(
            disk: disk, blockSize: Int64(BlockCache.defaultBlockSize), memoryCapacity: memoryCapacity, logger: logger,
            client: client, stallTimeout: .milliseconds(Int(options.stallTimeout * 1000)))
    }

}
