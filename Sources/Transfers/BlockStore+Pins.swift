import BlockCache
import Foundation

/// What the mount's pinner (`Pinner` in BoxFS) needs of the read path: pinning files in the disk cache
/// (`BlockCache+Pins`) and fetching one whole, checked against Box's SHA-1 by the same path a whole read takes.
extension BlockStore {
    /// Whether files can be pinned here (a disk cache: not `cache=off`).
    public var canPin: Bool { disk != nil }

    @discardableResult
    public func pin(fileID: String) -> Bool { disk?.pin(fileID: fileID) ?? false }

    @discardableResult
    public func unpin(fileID: String) -> Bool { disk?.unpin(fileID: fileID) ?? false }

    public var pinnedFileIDs: [String] { disk?.pinnedFileIDs ?? [] }

    /// Bytes of pinned blocks on disk.
    public var pinnedBytes: Int64 { disk?.pinnedBytes ?? 0 }

    /// Bytes pinned blocks may still take (`BlockCache.pinRoom`); 0 without a disk cache.
    public var pinRoom: Int64 { disk?.pinRoom ?? 0 }

    /// Bytes of block files `file` takes on disk.
    public func diskBytes(of file: RemoteFile) -> Int64 {
        disk?.diskBytes(forFileOfSize: file.size, fileID: file.id, version: file.version) ?? file.size
    }

    /// Whether every block of this version is on disk and was verified whole against Box's SHA-1.
    public func isComplete(_ file: RemoteFile) -> Bool {
        guard let disk else { return false }
        guard file.size > 0 else { return true }
        return disk.hasAllBlocks(fileID: file.id, version: file.version, size: file.size)
            && (file.sha1 == nil || disk.isVerified(fileID: file.id, version: file.version))
    }

    /// Reads `file` whole through a `FileReader` (blocks on disk are read, the rest fetched), so the whole-file
    /// check against Box's SHA-1 runs as for any whole read, and its blocks are on disk and marked verified when
    /// this returns. Throws what the read throws (`TransferError.checksumMismatch`: the blocks were dropped), or
    /// `TransferError.notKept` when a block found no room on disk.
    public func fetchWhole(_ file: RemoteFile) async throws {
        if isComplete(file) { return }
        let reader = FileReader(file: file, store: self, logger: logger)
        var offset: Int64 = 0
        while offset < file.size {
            try Task.checkCancellation()
            let data = try await reader.read(offset: offset, length: Int(blockSize))
            guard !data.isEmpty else { throw TransferError.shortRead(expectedAt: offset) }
            offset += Int64(data.count)
        }
        // The read that ended the file marked the version verified once the writes queued by then were on disk; a
        // block handed to the reader before its fetch queued it for the disk (a small file, read at once) lands
        // after that, and its write cleared the marker. The bytes were checked all the same: marked again once
        // every block is on disk.
        for _ in 0..<100 where !isComplete(file) {
            await flushDiskWrites()
            if reader.matchedWhole, disk?.hasAllBlocks(fileID: file.id, version: file.version, size: file.size) == true {
                markVerified(file)
                break
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        guard isComplete(file) else { throw TransferError.notKept(fileID: file.id) }
    }
}
