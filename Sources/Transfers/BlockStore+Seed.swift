import Crypto
import Foundation

extension BlockStore {
    /// The largest share of the disk cache one seeded file may take: a larger upload would only
    /// evict what was read before it, and most of its own blocks would be gone again by its end.
    static let seedShareOfCapacity: Int64 = 4

    /// Stores content this mount has just uploaded as the blocks of its new Box version, so reading
    /// it back fetches nothing from Box: what `cp` then `sha1sum`, `rsync -c` or an editor's reload
    /// would otherwise download again right after uploading it.
    ///
    /// `read(offset, length)` reads the local copy. Its bytes are hashed on the way and must match
    /// `file.sha1` (what Box computed of the upload); on a mismatch, or if the copy cannot be read,
    /// every block of the file is dropped again, so a seeded block is always Box's byte, and the version is
    /// marked verified (unless some blocks were cached already: those are skipped, not compared). Does
    /// nothing (false) without a disk cache, without a SHA-1, or for a file larger than a quarter of the
    /// cache. Returns whether the file was seeded.
    public func seed(_ file: RemoteFile, read: (_ offset: Int64, _ length: Int) throws -> Data) async -> Bool {
        guard let disk, let writer, let expected = file.sha1?.lowercased(), file.size > 0,
              file.size <= disk.capacity / Self.seedShareOfCapacity else { return false }
        var hasher = Insecure.SHA1()
        var offset: Int64 = 0
        var skipped = false
        do {
            while offset < file.size {
                let length = Int(min(blockSize, file.size - offset))
                let data = try read(offset, length)
                guard data.count == length else {
                    throw TransferError.shortRead(expectedAt: offset + Int64(data.count))
                }
                hasher.update(data: data)
                let index = offset / blockSize
                if !disk.has(fileID: file.id, version: file.version, block: Int(index)) {
                    await writer.waitForRoom()
                    writer.write([(index: index, data: data)], of: file)
                } else {
                    skipped = true
                }
                offset += Int64(length)
            }
        } catch {
            logger.debug("could not seed the cache with file \(file.id): \(error)")
            await writer.flush()
            drop(fileID: file.id)
            return false
        }
        await writer.flush()  // on disk before the caller lets readers look for the blocks
        let actual = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        guard actual == expected else {
            // Expected when the local copy went on to become another file's content (a save by rename).
            logger.debug("the local copy of file \(file.id) does not match Box's SHA-1; not cached")
            drop(fileID: file.id)
            return false
        }
        // Every block written here is Box's byte; a block that was cached already was not compared.
        if !skipped { markVerified(file) }
        return true
    }
}
