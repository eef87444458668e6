import SystemCalls
import Foundation
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A sparse on-disk store of fixed-size blocks of Box files, keyed by (file id, version), so a
/// changed file can never serve stale bytes. No network here: the read path fills and reads it.
///
/// On disk (see `CacheLayout`): `<directory>/boxfs-layout-2/blocks/<xx>/<file>~<version>~<block>`,
/// one file per block: the data, then a `BlockTrailer` (magic, layout version, key, block index,
/// length, XXH64 checksum over trailer and data). Any subset of a file's blocks may be present. A
/// block whose trailer, length or checksum does not match what was asked is a miss and is deleted.
/// A new block is written under its final name (only blocks in the index are ever read), a
/// replaced one through `tmp/` and a rename; a crash or a torn write after a power loss leaves at
/// worst a file the checksum rejects. Page-aligned data is written with `O_DIRECT` (see `BlockFile`).
///
/// Why plain files and no SQLite index: every fact the index needs (key, size, last use) is in a
/// block file's name, size and mtime, so start-up is one readdir per fan-out folder plus one
/// fstatat per block (tens of thousands of blocks in well under a second), and nothing can get out
/// of step with the files themselves. Reads set the file's mtime, so the LRU order survives restarts.
///
/// Size: `usedBytes` counts whole block files (header + data); with blocks being written it never
/// exceeds `capacity`; least recently read or written blocks are evicted first.
///
/// Disk space: the cache shares its filesystem with the write-back journal and the local copies of
/// written files, and a read must never take the room a write needs. So a block is stored only if
/// `minimumFree` bytes stay free on the filesystem after it (older blocks are evicted to make it so,
/// or the block is dropped), and `giveWay` evicts on demand when a write found the disk full.
///
/// Concurrency: all state sits in one `Mutex` (no other lock exists, so no lock order). Data is
/// read, hashed and written outside it; under it happen only the index updates and the short
/// metadata calls that must agree with them (rename into place, unlink). The API is synchronous
/// because each call is a few system calls; `write` may wait for the disk (`O_DIRECT`), so callers
/// should write from a thread of their own rather than from Swift's cooperative pool.
///
/// Errors: `init` throws when the directory is unusable; after that nothing throws: failed writes
/// are dropped with a warning and failed reads are misses.
public final class BlockCache: Sendable {
    /// 2: trailer after the data, XXH64 (1: header before the data, SHA-256).
    public static let layoutVersion = 2
    public static let defaultBlockSize = 1 << 20

    /// The capacity (in the cache's own accounting, each block file's length) that keeps a cache of full blocks
    /// within `diskSpace` bytes on disk. Each block file takes whole 4 KiB file-system blocks, so a block with its
    /// trailer takes one 4 KiB block more than the block itself: counted by length alone, a full 2 GiB cache of
    /// 1 MiB blocks held 2,055 MiB on disk (`scripts/bench` case 14).
    public static func capacity(withinDiskSpace diskSpace: Int64, blockSize: Int = defaultBlockSize) -> Int64 {
        let fileSystemBlock = Int64(BlockFile.directAlignment)
        let onDisk = (Int64(blockSize) + fileSystemBlock) / fileSystemBlock * fileSystemBlock
        return diskSpace / onDisk * Int64(blockSize) + min(diskSpace % onDisk, Int64(blockSize))
    }

    public let blockSize: Int
    public let capacity: Int64
    /// Bytes the cache leaves free on its filesystem (0: no check).
    public let minimumFree: Int64
    /// The budget of pinned blocks (nil: the disk's free space); see `BlockCache+Pins`.
    public let pinCapacity: Int64?
    /// Pinned files: escaped id → Box file id (taken under `state`'s lock, after it).
    let pinnedIDs: Mutex<[String: String]>
    let layout: CacheLayout
    let state: Mutex<CacheIndex>
    private let lockDescriptor: Int32
    private let tempCounter = Atomic<UInt64>(0)
    let logger: Logger

    /// Opens (creating it with mode 0700 if needed) the cache in `directory`, deleting data of other
    /// layout versions or block sizes, and evicting down to `capacity` if it shrank.
    /// - Parameter pinCapacity: the budget of pinned files' blocks (`pin_size`), apart from `capacity`; nil: none of
    ///   their own, the disk's free space decides (see `BlockCache+Pins`).
    public init(directory: URL, capacity: Int64, blockSize: Int = defaultBlockSize, minimumFree: Int64 = 0,
                pinCapacity: Int64? = nil, logger: Logger = Logger(label: "boxfs.blockcache")) throws {
        guard blockSize > 0, blockSize <= Int(UInt32.max) else {
            throw BlockCacheError.invalidConfiguration("block size \(blockSize)")
        }
        guard capacity >= 0 else { throw BlockCacheError.invalidConfiguration("capacity \(capacity)") }
        self.blockSize = blockSize
        self.capacity = capacity
        self.minimumFree = max(0, minimumFree)
        self.logger = logger
        layout = CacheLayout(directory: directory, blockSize: blockSize)
        lockDescriptor = try layout.lock()
        self.pinCapacity = pinCapacity
        var index = CacheIndex(capacity: capacity, pinCapacity: pinCapacity)
        var pinnedIDs: [String: String] = [:]
        do {
            try layout.prepare()
            // Pinned files first: their blocks go to the pinned class and are never evicted below.
            pinnedIDs = Self.loadPinned(layout: layout, into: &index)
            for block in layout.scan().sorted(by: { $0.lastUsed < $1.lastUsed }) {
                index.insert(block.key, size: block.size)
            }
        } catch {
            Syscall.close(lockDescriptor)
            throw error
        }
        let evicted = index.evictToCapacity()
        Self.loadVerified(layout: layout, into: &index)
        state = Mutex(index)
        self.pinnedIDs = Mutex(pinnedIDs)
        evicted.forEach(deleteFile)
    }

    deinit {
        Syscall.close(lockDescriptor)
    }

    /// Bytes of block files (headers included) currently in the cache.
    public var usedBytes: Int64 { state.withLock { $0.usedBytes } }

    /// Number of blocks currently in the cache.
    public var blockCount: Int { state.withLock { $0.count } }

    /// Whether the block is present (its contents are only verified by `read`).
    public func has(fileID: String, version: String, block: Int) -> Bool {
        guard let key = BlockKey(fileID: fileID, version: version, block: block) else { return false }
        return state.withLock { $0.entry(key) != nil }
    }

    /// The block's bytes, or nil on a miss. A block that fails verification is deleted.
    public func read(fileID: String, version: String, block: Int) -> Data? {
        guard let key = BlockKey(fileID: fileID, version: version, block: block),
              let entry = state.withLock({ $0.touch(key) }) else { return nil }
        do {
            return try BlockFile.read(path: layout.blockPath(key), fileID: fileID, version: version, block: block,
                                      expectedSize: entry.size)
        } catch {
            logger.warning("block cache miss on a bad block, deleting it", metadata: ["error": "\(error)"])
            state.withLock { index in
                if index.remove(key, generation: entry.generation) { deleteFile(key) }
            }
            return nil
        }
    }

    /// Removes every cached block of a file, all versions, and their verified markers.
    public func remove(fileID: String) {
        guard let file = BlockKey.escape(fileID) else { return }
        state.withLock { index in
            index.removeFile(file).forEach(deleteFile)
            unmarkVerified(file: file, in: &index)
        }
    }

    /// Evicts least recently used blocks until at least `bytes` are freed on disk (or the cache is
    /// empty): a write that found the disk full asks this before it tries again. Returns the bytes freed.
    @discardableResult
    public func giveWay(_ bytes: Int64) -> Int64 {
        let freed = state.withLock { index in
            let (keys, freed) = index.evictOldest(atLeast: bytes)
            keys.forEach(deleteFile)
            return freed
        }
        if freed > 0 { logger.notice("block cache gave up \(freed) bytes to make room for written data") }
        return freed
    }

    /// Bytes an unprivileged process may still write on the cache's filesystem, or nil if unknown.
    public static func availableBytes(at path: String) -> Int64? {
        guard let info = try? Syscall.fileSystemStatus(path) else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// The default `minimumFree` for a cache in `directory`: 512 MiB, or a tenth of the filesystem
    /// if that is smaller (so a small disk still caches something).
    public static func defaultMinimumFree(directory: URL) -> Int64 {
        let limit: Int64 = 512 << 20
        guard let info = try? Syscall.fileSystemStatus(directory.path) else { return limit }
        return min(limit, Int64(info.f_blocks) * Int64(info.f_frsize) / 10)
    }

    /// Deletes a block file; a failure is logged and otherwise ignored (the index no longer has it).
    func deleteFile(_ key: BlockKey) {
        let path = layout.blockPath(key)
        do {
            try Syscall.unlink(path)
        } catch {
            logger.warning("block cache could not delete a block", metadata: ["error": "\(error)"])
        }
    }

    /// Keys from least to most recently used (tests).
    var keysOldestFirst: [BlockKey] { state.withLock { $0.keysOldestFirst } }

    func nextTempPath() -> String {
        layout.tempPath(tempCounter.wrappingAdd(1, ordering: .relaxed).newValue)
    }
}
