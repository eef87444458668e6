import SystemCalls
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One `cache_dir` holds a block cache per account and server (its subfolders); `cache_size` is the limit
/// for all of them together. A mount calls `share` before opening its own cache, and gets the capacity
/// its cache may use:
///
/// - a sibling cache in use by a running mount (its `boxfs-cache.lock` is held) is left alone and its
///   bytes are taken off the limit;
/// - an idle sibling (lock free) not used for `staleAfter` (no block read or written, no mount opened
///   it) loses its blocks; the rest of its subfolder (write-back journals, event position) stays;
/// - idle siblings keep at most half of what running ones leave, their least recently used blocks going
///   first, and their bytes are taken off the limit too.
///
/// So the limit holds for the whole `cache_dir` at any moment; a mount shares it as it found it when it
/// started (a sibling mount started later sees this one's bytes in turn). Idle siblings are trimmed with
/// their lock held, so no mount opens them meanwhile.
public enum SharedCacheDirectory {
    /// What `share` found and did.
    public struct Sharing: Sendable, Equatable {
        /// The capacity the mount's own cache may use.
        public var capacity: Int64
        /// Bytes of sibling caches in use by running mounts.
        public var inUse: Int64
        /// Bytes idle siblings keep.
        public var idle: Int64
        /// Bytes deleted from idle siblings.
        public var trimmed: Int64
    }

    public static let defaultStaleAfter: TimeInterval = 30 * 24 * 3600

    /// See the type's comment. `own` is the mount's subfolder of `base`; `limit` is `cache_size`.
    public static func share(
        base: URL, own: URL, limit: Int64, blockSize: Int = BlockCache.defaultBlockSize,
        staleAfter: TimeInterval = defaultStaleAfter, now: Date = Date()
    ) -> Sharing {
        let ownPath = own.standardizedFileURL.path
        var sharing = Sharing(capacity: limit, inUse: 0, idle: 0, trimmed: 0)
        var idle: [(layout: CacheLayout, lock: Int32, blocks: [CacheLayout.ScannedBlock])] = []
        defer { idle.forEach { Syscall.close($0.lock) } }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: base.standardizedFileURL.path)) ?? []
        for name in names.sorted() {
            let layout = CacheLayout(directory: base.appendingPathComponent(name), blockSize: blockSize)
            guard layout.root != ownPath, FileManager.default.fileExists(atPath: layout.lockPath) else { continue }
            guard let lock = try? Syscall.open(layout.lockPath, O_RDWR) else { continue }
            let blocks = layout.scan()
            let bytes = blocks.reduce(Int64(0)) { $0 + $1.size }
            guard (try? Syscall.lockExclusively(lock, path: layout.lockPath)) == true else {
                Syscall.close(lock)
                sharing.inUse += bytes
                continue
            }
            let lastUse = max(blocks.map(\.lastUsed).max() ?? 0, layout.lockFileModified)
            if Double(lastUse) / 1e9 < now.timeIntervalSince1970 - staleAfter {
                try? FileManager.default.removeItem(atPath: layout.layoutDirectory)
                sharing.trimmed += bytes
                Syscall.close(lock)
                continue
            }
            idle.append((layout, lock, blocks))
            sharing.idle += bytes
        }
        // Idle siblings keep at most half of what running ones leave, oldest blocks going first.
        let idleLimit = max(0, limit - sharing.inUse) / 2
        if sharing.idle > idleLimit {
            let oldestFirst = idle.flatMap { sibling in sibling.blocks.map { (sibling.layout, $0) } }
                .sorted { $0.1.lastUsed < $1.1.lastUsed }
            for (layout, block) in oldestFirst where sharing.idle > idleLimit {
                guard (try? Syscall.unlink(layout.blockPath(block.key))) != nil else { continue }
                sharing.idle -= block.size
                sharing.trimmed += block.size
            }
        }
        sharing.capacity = max(0, limit - sharing.inUse - sharing.idle)
        return sharing
    }
}

extension CacheLayout {
    /// When the lock file was last touched (a cache opening it touches it), in nanoseconds; 0 if unknown.
    var lockFileModified: Int64 {
        guard let info = try? Syscall.status(lockPath) else { return 0 }
        return Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }
}
