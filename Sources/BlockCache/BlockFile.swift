import SystemCalls
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads and writes one block file: the block's bytes followed by its `BlockTrailer`.
enum BlockFile {
    /// Alignment `O_DIRECT` needs for the buffer address, file offset and length (the page size
    /// covers every logical block size in use).
    static let directAlignment = 4096
    /// Cleared the first time the file system refuses `O_DIRECT` (tmpfs on old kernels, some FUSE
    /// file systems): later writes go straight to buffered I/O.
    private static let directIOWorks = Atomic<Bool>(directFlag != 0)

    /// Linux's `O_DIRECT`, which Swift's Glibc module does not export (0: not available).
    private static var directFlag: Int32 {
        #if os(Linux) && (arch(x86_64) || arch(i386))
        return 0o40000
        #elseif os(Linux) && (arch(arm64) || arch(arm))
        return 0o200000
        #else
        return 0
        #endif
    }

    /// Writes a new file at `path` (which must not exist).
    ///
    /// When the data's address is page-aligned (blocks sliced from `ReceiveBufferPool` buffers are),
    /// its whole pages go with `O_DIRECT`: to the disk without growing the page cache, which on a VM
    /// costs as much CPU as the copy itself (fresh pages) and would hold a second copy of what the
    /// kernel already caches for the mounted file. The rest (a short last page, the trailer) is a
    /// buffered write.
    static func write(path: String, trailer: [UInt8], data: Data) throws {
        let fd = try Syscall.open(path, O_WRONLY | O_CREAT | O_EXCL)
        defer { Syscall.close(fd) }
        try data.withUnsafeBytes { bytes in
            var written = 0
            let direct = directLength(bytes)
            if direct > 0, setDirect(fd, true) {
                do {
                    try Syscall.writeAll(fd, UnsafeRawBufferPointer(rebasing: bytes[0..<direct]), at: 0, path: path)
                    written = direct
                } catch let failure as SystemCallError where failure.errno == EINVAL {
                    directIOWorks.store(false, ordering: .relaxed)
                }
                _ = setDirect(fd, false)
            }
            let rest = UnsafeRawBufferPointer(rebasing: bytes[written...])
            try Syscall.writeAll(fd, rest, at: Int64(written), path: path)
        }
        try trailer.withUnsafeBytes { try Syscall.writeAll(fd, $0, at: Int64(data.count), path: path) }
    }

    /// How many leading bytes of `bytes` may be written with `O_DIRECT` (0: none).
    private static func directLength(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard directIOWorks.load(ordering: .relaxed), let base = bytes.baseAddress,
              Int(bitPattern: base) % directAlignment == 0 else { return 0 }
        return bytes.count / directAlignment * directAlignment
    }

    /// Turns `O_DIRECT` on or off for `fd`; false when that failed (turning it on then stays off for good).
    private static func setDirect(_ fd: Int32, _ on: Bool) -> Bool {
        guard let flags = try? Syscall.statusFlags(fd, path: "a block file"),
              (try? Syscall.setStatusFlags(fd, on ? flags | directFlag : flags & ~directFlag, path: "a block file")) != nil
        else {
            if on { directIOWorks.store(false, ordering: .relaxed) }
            return false
        }
        return true
    }

    /// The block's bytes, after checking the file's size against `expectedSize` and its trailer and
    /// checksum against the key. Marks the file used (mtime) so LRU order survives a restart.
    static func read(path: String, fileID: String, version: String, block: Int,
                     expectedSize: Int64) throws -> Data {
        let fd = try Syscall.open(path, O_RDONLY)
        defer { Syscall.close(fd) }
        let size = try Syscall.size(fd, path: path)
        guard size == expectedSize else { throw BlockCacheError.invalidBlock(path: path, reason: "file size") }
        let trailerLength = BlockTrailer.fixedLength + fileID.utf8.count + version.utf8.count
        let dataLength = Int(size) - trailerLength
        guard dataLength > 0 else { throw BlockCacheError.invalidBlock(path: path, reason: "too short") }
        var data = Data(count: dataLength)
        let dataRead = try data.withUnsafeMutableBytes { try Syscall.readFully(fd, into: $0, at: 0, path: path) }
        var stored = [UInt8](repeating: 0, count: trailerLength)
        let trailerRead = try stored.withUnsafeMutableBytes {
            try Syscall.readFully(fd, into: $0, at: Int64(dataLength), path: path)
        }
        guard trailerRead == trailerLength, dataRead == dataLength else {
            throw BlockCacheError.invalidBlock(path: path, reason: "short read")
        }
        let expected = BlockTrailer(fileID: fileID, version: version, block: block, dataLength: dataLength)
        if let reason = expected.mismatch(stored: stored, data: data) {
            throw BlockCacheError.invalidBlock(path: path, reason: reason)
        }
        try? Syscall.touch(fd, path: path)
        return data
    }
}
