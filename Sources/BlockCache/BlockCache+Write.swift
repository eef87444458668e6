import SystemCalls
import Foundation

extension BlockCache {
    /// Stores one block (best-effort: a block that cannot be stored is dropped with a warning).
    ///
    /// `data` must hold 1 ... `blockSize` bytes (the last block of a file may be short). Storing a
    /// block of one version deletes the blocks of the file's other versions, and the version's verified
    /// marker (see `BlockCache+Verified`). Space is reserved first
    /// (evicting least recently used blocks), so `usedBytes` never exceeds `capacity`; a block of a pinned file
    /// is reserved within the pinned budget instead (`BlockCache+Pins`), evicting nothing but what `minimumFree` needs.
    ///
    /// A block not in the cache yet is written straight under its own name (readers only open blocks
    /// in the index, and a crash leaves at worst a file whose checksum fails); replacing a block goes
    /// through a temp file renamed over it under the lock. The data is written outside the lock and
    /// may block on the disk (`O_DIRECT`): call from a thread that may block, not from a task.
    public func write(fileID: String, version: String, block: Int, data: Data) {
        guard let key = BlockKey(fileID: fileID, version: version, block: block) else {
            logger.warning("block cache ignores a block with an unusable key", metadata: ["block": "\(block)"])
            return
        }
        guard !data.isEmpty, data.count <= blockSize else {
            logger.warning("block cache ignores a block of \(data.count) bytes (block size \(blockSize))")
            return
        }
        let trailer = BlockTrailer(fileID: fileID, version: version, block: block, dataLength: data.count)
            .encoded(for: data)
        let size = Int64(trailer.count + data.count)
        let available = minimumFree > 0 ? Self.availableBytes(at: layout.root) : nil
        let (granted, isNew, pinned) = state.withLock { index in
            // Other versions go first: a new version of a pinned file takes their room in its budget.
            let stale = index.removeOtherVersions(of: key)
            var reservation = index.reserve(size, for: key)
            reservation.evicted += stale
            if reservation.granted, let available, minimumFree + size > available {
                // Keep `minimumFree` on the disk: evict older blocks for this one, or drop it.
                let (keys, freed) = index.evictOldest(atLeast: minimumFree + size - available)
                reservation.evicted += keys
                if freed < minimumFree + size - available {
                    index.release(size, pinned: reservation.pinned)
                    reservation.granted = false
                }
            }
            reservation.evicted.forEach(deleteFile)
            unmarkVerified(key, in: &index)  // a new block is unverified until its whole read
            return (reservation.granted, index.entry(key) == nil, reservation.pinned)
        }
        guard granted else {
            logger.debug("block cache has no room for a block", metadata: ["size": "\(size)"])
            return
        }
        let path = isNew ? layout.blockPath(key) : nextTempPath()
        do {
            try BlockFile.write(path: path, trailer: trailer, data: data)
        } catch {
            // EEXIST: another writer is storing the same new block right now; its copy wins.
            if let failure = error as? SystemCallError, failure.errno == EEXIST {
                state.withLock { $0.release(size, pinned: pinned) }
                return
            }
            logger.warning("block cache write failed, block dropped", metadata: ["error": "\(error)"])
            try? Syscall.unlink(path)
            state.withLock { $0.release(size, pinned: pinned) }
            return
        }
        state.withLock { index in
            index.release(size, pinned: pinned)
            do {
                if !isNew { try Syscall.rename(path, to: layout.blockPath(key)) }
                index.insert(key, size: size)
            } catch {
                logger.warning("block cache rename failed, block dropped", metadata: ["error": "\(error)"])
                try? Syscall.unlink(path)
                if index.remove(key) != nil { deleteFile(key) }
            }
        }
    }
}
