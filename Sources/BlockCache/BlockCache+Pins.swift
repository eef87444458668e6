import SystemCalls
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Pinned files: blocks that are never evicted, with a budget of their own.
///
/// `boxfs pin` keeps a folder's files on this machine whatever else is read: their blocks must survive any
/// amount of other reading (cache pressure), `giveWay` for written data, and a remount with a smaller
/// `cache_size`. So a pinned file's blocks leave the LRU list for a list of their own (`CacheIndex`), counted in
/// `pinnedBytes` and never in `usedBytes`: `cache_size` is the budget of what may be evicted, `pinCapacity`
/// (`pin_size`) that of what may not; without one, pinned blocks take what the disk has free, less
/// `minimumFree` (ordinary blocks are evicted to make room, as for any block).
///
/// Which files are pinned is kept on disk (`pinned/<file>`, holding the Box file id), so the next opening
/// counts their blocks as pinned before it evicts anything to fit `capacity`. The cache does not know why a file
/// is pinned: the mount's pinner (`Pinner` in BoxFS) pins each file of a pinned folder and unpins those no
/// pin covers any more. Removing a pinned file's blocks (`remove(fileID:)`, a failed check) keeps the pin.
extension BlockCache {
    /// Pins a file (all versions): its blocks, cached now or later, are never evicted. Returns whether it was
    /// not pinned before.
    @discardableResult
    public func pin(fileID: String) -> Bool {
        guard let file = BlockKey.escape(fileID) else { return false }
        if state.withLock({ $0.isPinned(file: file) }) { return false }
        // The marker first: a crash between the two leaves a pin the next opening honours, never blocks a
        // reopening would evict.
        let path = layout.pinnedPath(file)
        do {
            try Data(fileID.utf8).write(to: URL(fileURLWithPath: path))
        } catch {
            logger.warning("block cache could not record a pinned file", metadata: ["error": "\(error)"])
        }
        let pinned = state.withLock { $0.pin(file: file) }
        pinnedIDs.withLock { $0[file] = fileID }
        return pinned
    }

    /// Unpins a file: its blocks become ordinary cache (the most recently used), and older ordinary blocks are
    /// evicted if they no longer fit `capacity`. Returns whether it was pinned.
    @discardableResult
    public func unpin(fileID: String) -> Bool {
        guard let file = BlockKey.escape(fileID) else { return false }
        let evicted = state.withLock { index -> [BlockKey]? in
            guard let evicted = index.unpin(file: file) else { return nil }
            evicted.forEach(deleteFile)
            return evicted
        }
        pinnedIDs.withLock { $0[file] = nil }
        try? Syscall.unlink(layout.pinnedPath(file))
        return evicted != nil
    }

    public func isPinned(fileID: String) -> Bool {
        guard let file = BlockKey.escape(fileID) else { return false }
        return state.withLock { $0.isPinned(file: file) }
    }

    /// The Box ids of the pinned files.
    public var pinnedFileIDs: [String] { pinnedIDs.withLock { Array($0.values) } }

    /// Bytes of pinned files' block files (headers included), apart from `usedBytes`.
    public var pinnedBytes: Int64 { state.withLock { $0.pinnedBytes } }

    /// Bytes pinned blocks may still take: what is left of `pinCapacity`, else the disk's free space less
    /// `minimumFree`, with what ordinary blocks hold (they are evicted for pinned ones).
    public var pinRoom: Int64 {
        let (pinned, reserved, used) = state.withLock { ($0.pinnedBytes, $0.pinnedReserved, $0.usedBytes) }
        if let pinCapacity { return max(0, pinCapacity - pinned - reserved) }
        guard let available = Self.availableBytes(at: layout.root) else { return .max / 4 }
        return max(0, available - minimumFree - reserved) + used
    }

    /// Bytes of block files a file of `size` bytes takes in the cache (what pinning it costs).
    public func diskBytes(forFileOfSize size: Int64, fileID: String, version: String) -> Int64 {
        guard size > 0 else { return 0 }
        let blocks = (size + Int64(blockSize) - 1) / Int64(blockSize)
        let trailer = Int64(BlockTrailer(fileID: fileID, version: version, block: 0, dataLength: 0).length)
        return size + blocks * trailer
    }

    /// Whether every block of a file of `size` bytes is cached for `version`.
    public func hasAllBlocks(fileID: String, version: String, size: Int64) -> Bool {
        guard size > 0 else { return true }
        let count = Int((size + Int64(blockSize) - 1) / Int64(blockSize))
        return (0..<count).allSatisfy { has(fileID: fileID, version: version, block: $0) }
    }

    /// Loads the pinned markers found at start-up into `index`; answers escaped id → Box id.
    static func loadPinned(layout: CacheLayout, into index: inout CacheIndex) -> [String: String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: layout.pinnedDirectory)) ?? []
        var ids: [String: String] = [:]
        for name in names {
            let raw = (try? String(contentsOfFile: layout.pinnedPath(name), encoding: .utf8)) ?? ""
            guard !raw.isEmpty, BlockKey.escape(raw) == name else {
                try? Syscall.unlink(layout.pinnedPath(name))
                continue
            }
            index.pin(file: name)
            ids[name] = raw
        }
        return ids
    }
}
