import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads and writes one block file: `BlockHeader` followed by the block's bytes.
enum BlockFile {
    /// Writes a new file at `path` (which must not exist: it is a fresh temp name).
    static func write(path: String, header: [UInt8], data: Data) throws {
        let fd = try Posix.openFile(path, O_WRONLY | O_CREAT | O_EXCL)
        defer { Posix.closeFile(fd) }
        try header.withUnsafeBytes { try Posix.pwriteFully(fd, $0, at: 0, path: path) }
        try data.withUnsafeBytes { try Posix.pwriteFully(fd, $0, at: Int64(header.count), path: path) }
    }

    /// The block's bytes, after checking the file's size against `expectedSize` and its header and
    /// checksum against the key. Marks the file used (mtime) so LRU order survives a restart.
    static func read(path: String, fileID: String, version: String, block: Int,
                     expectedSize: Int64) throws -> Data {
        let fd = try Posix.openFile(path, O_RDONLY)
        defer { Posix.closeFile(fd) }
        let size = try Posix.fileSize(fd, path: path)
        guard size == expectedSize else { throw BlockCacheError.invalidBlock(path: path, reason: "file size") }
        let headerLength = BlockHeader.fixedLength + fileID.utf8.count + version.utf8.count
        let dataLength = Int(size) - headerLength
        guard dataLength > 0 else { throw BlockCacheError.invalidBlock(path: path, reason: "too short") }
        var stored = [UInt8](repeating: 0, count: headerLength)
        let headerRead = try stored.withUnsafeMutableBytes { try Posix.preadFully(fd, $0, at: 0, path: path) }
        var data = Data(count: dataLength)
        let dataRead = try data.withUnsafeMutableBytes {
            try Posix.preadFully(fd, $0, at: Int64(headerLength), path: path)
        }
        guard headerRead == headerLength, dataRead == dataLength else {
            throw BlockCacheError.invalidBlock(path: path, reason: "short read")
        }
        let expected = BlockHeader(fileID: fileID, version: version, block: block, dataLength: dataLength)
        if let reason = expected.mismatch(stored: stored, data: data) {
            throw BlockCacheError.invalidBlock(path: path, reason: reason)
        }
        _ = futimens(fd, nil)
        return data
    }
}
