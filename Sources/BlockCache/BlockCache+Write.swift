import Foundation

extension BlockCache {
    /// Stores one block (best-effort: a block that cannot be stored is dropped with a warning).
    ///
    /// `data` must hold 1 ... `blockSize` bytes (the last block of a file may be short). Storing a
    /// block of one version deletes the blocks of the file's other versions. The block is written
    /// to a temp file outside the lock and renamed into place under it, after space was reserved
    /// (evicting least recently used blocks), so `usedBytes` never exceeds `capacity`.
    public func write(fileID: String, version: String, block: Int, data: Data) {
        guard let key = BlockKey(fileID: fileID, version: version, block: block) else {
            logger.warning("block cache ignores a block with an unusable key", metadata: ["block": "\(block)"])
            return
        }
        guard !data.isEmpty, data.count <= blockSize else {
            logger.warning("block cache ignores a block of \(data.count) bytes (block size \(blockSize))")
            return
        }
        let header = BlockHeader(fileID: fileID, version: version, block: block, dataLength: data.count)
            .encoded(for: data)
        let size = Int64(header.count + data.count)
        let granted = state.withLock { index in
            var reservation = index.reserve(size)
            reservation.evicted += index.removeOtherVersions(of: key)
            reservation.evicted.forEach(deleteFile)
            return reservation.granted
        }
        guard granted else {
            logger.debug("block cache has no room for a block", metadata: ["size": "\(size)"])
            return
        }
        let temp = nextTempPath()
        do {
            try BlockFile.write(path: temp, header: header, data: data)
        } catch {
            logger.warning("block cache write failed, block dropped", metadata: ["error": "\(error)"])
            try? Posix.unlinkFile(temp)
            state.withLock { $0.release(size) }
            return
        }
        state.withLock { index in
            index.release(size)
            do {
                try Posix.renameFile(temp, layout.blockPath(key))
                index.insert(key, size: size)
            } catch {
                logger.warning("block cache rename failed, block dropped", metadata: ["error": "\(error)"])
                try? Posix.unlinkFile(temp)
                if index.remove(key) != nil { deleteFile(key) }
            }
        }
    }
}
