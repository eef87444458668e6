import BlockCache
import BoxAPI
import Crypto
import Foundation
import Logging
import Transfers

/// Builds the read path's block store: the disk cache (unless `cache=off`) and the fetcher.
enum ReadPathSetup {
    /// Bytes of fetched-but-unread blocks kept in memory across all open files.
    static let memoryCapacity = 64 << 20

    static func makeStore(options: MountOptions, endpoint: String, userID: String, client: BoxClient, logger: Logger) -> BlockStore {
        var disk: BlockCache?
        if options.cacheEnabled {
            let directory = CacheLocation.accountDirectory(options: options, endpoint: endpoint, userID: userID)
            do {
                disk = try BlockCache(directory: directory, capacity: options.cacheSize, logger: logger)
                logger.info("block cache at \(directory.path), limit \(options.cacheSize) bytes")
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
