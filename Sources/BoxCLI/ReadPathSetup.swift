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

    /// The cache folder is per account and server, so ids from different servers never meet:
    /// `<cache_dir>/<sha256(endpoint + user id) prefix>`.
    static func makeStore(options: MountOptions, endpoint: String, userID: String, client: BoxClient, logger: Logger) -> BlockStore {
        var disk: BlockCache?
        if options.cacheEnabled {
            let base = options.cacheDirectory.map { URL(fileURLWithPath: $0) } ?? defaultCacheBase()
            let account = SHA256.hash(data: Data("\(endpoint)\n\(userID)".utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
            let directory = base.appendingPathComponent(account)
            do {
                try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                disk = try BlockCache(directory: directory, capacity: options.cacheSize, logger: logger)
                logger.info("block cache at \(directory.path), limit \(options.cacheSize) bytes")
            } catch {
                logger.warning("block cache disabled: \(error)")
            }
        }
        return BlockStore(
            disk: disk, blockSize: Int64(BlockCache.defaultBlockSize), memoryCapacity: memoryCapacity, logger: logger
        ) { fileID, range in
            try await client.download(fileID: fileID, range: range)
        }
    }

    static func defaultCacheBase() -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return URL(fileURLWithPath: xdg).appendingPathComponent("boxfs") }
        let home = environment["HOME"].map { URL(fileURLWithPath: $0) } ?? FileManager.default.homeDirectoryForCurrentUser
        return home.appendingPathComponent(".cache/boxfs")
    }
}
