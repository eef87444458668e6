import Crypto
import Foundation

/// What `importFile` made of a local file: a blob file in the store, or the bytes of a small file, which the
/// seeder appends to a pack (with the others of its batch, in one write) unless the content is stored already.
enum ImportedBlob: Sendable {
    case stored(sha1: String, size: Int64)
    case small(sha1: String, bytes: [UInt8])

    var sha1: String {
        switch self {
        case .stored(let sha1, _), .small(let sha1, _): sha1
        }
    }

    var size: Int64 {
        switch self {
        case .stored(_, let size): size
        case .small(_, let bytes): Int64(bytes.count)
        }
    }
}

/// Copies local files into the blob store for `--seed`.
///
/// Files up to `BlobPacks.maxPackedSize` are read whole and handed back (`ImportedBlob.small`) to be packed.
/// Sparse files stay sparse: only the file's data extents (`SEEK_DATA`/`SEEK_HOLE`) are read and written,
/// at their offsets; a hole is hashed as zeros without being read and stays a hole in the blob (the blob is
/// `ftruncate`d to the file's size), so a sparse 100 GiB seed file costs what its data costs. A file system
/// without `SEEK_DATA` shows the whole file as one extent. Content already in the store is not written
/// again. Safe to call from several threads at once.
extension BlobStore {
    func importFile(atPath source: String) throws -> ImportedBlob {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw BlobStoreError.cannotOpen(source, errno) }
        defer { close(input) }
        var info = stat()
        guard fstat(input, &info) == 0 else { throw BlobStoreError.io(source, errno) }
        let size = Int64(info.st_size)
        if size <= BlobPacks.maxPackedSize {
            var bytes = [UInt8](repeating: 0, count: Int(size))
            let count = try bytes.withUnsafeMutableBytes { buffer in
                try Self.readFully(input, into: buffer, count: Int(size), at: 0, source: source)
            }
            bytes.removeLast(Int(size) - count)
            return .small(sha1: Self.hex(Insecure.SHA1.hash(data: bytes)), bytes: bytes)
        }
        // Fully allocated and under 1 MiB: one read, then nothing to write when the content is already stored.
        if size <= Self.chunkSize, Int64(info.st_blocks) * 512 >= size {
            let (sha1, size) = try importSmall(input, size: Int(size), source: source)
            return .stored(sha1: sha1, size: size)
        }
        let (sha1, stored) = try importExtents(input, size: size, source: source)
        return .stored(sha1: sha1, size: stored)
    }

    private func importSmall(_ input: Int32, size: Int, source: String) throws -> (sha1: String, size: Int64) {
        var buffer = [UInt8](repeating: 0, count: max(size, 1))
        let count = try buffer.withUnsafeMutableBytes { bytes in
            try Self.readFully(input, into: bytes, count: size, at: 0, source: source)
        }
        let sha1 = buffer.withUnsafeBytes { Self.hex(Insecure.SHA1.hash(data: $0[0..<count])) }
        let target = path(forSHA1: sha1)
        if access(target, F_OK) == 0 { return (sha1, Int64(count)) }
        // The temporary file goes beside its target: files made in one busy folder make ext4 search ever longer
        // for a free inode near it (most of a million-file seed's time went there).
        let folder = (target as NSString).deletingLastPathComponent
        let temporary = folder + "/.tmp-" + UUID().uuidString
        var output = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        if output < 0 && errno == ENOENT {
            if mkdir(folder, 0o755) != 0 && errno != EEXIST { throw BlobStoreError.io(folder, errno) }
            output = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        }
        guard output >= 0 else { throw BlobStoreError.cannotOpen(temporary, errno) }
        do {
            try buffer.withUnsafeBytes { try Self.writeFully(output, UnsafeRawBufferPointer(rebasing: $0[0..<count]),
                                                             at: 0, path: temporary) }
            close(output)
            try install(temporary, at: target)
        } catch {
            close(output)
            unlink(temporary)
            throw error
        }
        return (sha1, Int64(count))
    }

    private func importExtents(_ input: Int32, size: Int64, source: String) throws -> (sha1: String, size: Int64) {
        let temporary = temporaryPath()
        let output = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw BlobStoreError.cannotOpen(temporary, errno) }
        var hasher = Insecure.SHA1()
        var buffer = [UInt8](repeating: 0, count: Self.chunkSize)
        var offset: Int64 = 0
        do {
            // A file that shrinks while it is read ends where its bytes end.
            extents: while offset < size {
                let (dataStart, dataEnd) = try Self.nextExtent(input, from: offset, size: size, source: source)
                Self.hashZeros(&hasher, count: dataStart - offset)
                offset = dataStart
                while offset < dataEnd {
                    let wanted = Int(min(Int64(Self.chunkSize), dataEnd - offset))
                    let count = try buffer.withUnsafeMutableBytes { bytes in
                        try Self.readFully(input, into: bytes, count: wanted, at: offset, source: source)
                    }
                    if count == 0 { break extents }
                    try buffer.withUnsafeBytes { bytes in
                        let chunk = UnsafeRawBufferPointer(rebasing: bytes[0..<count])
                        hasher.update(bufferPointer: chunk)
                        try Self.writeFully(output, chunk, at: offset, path: temporary)
                    }
                    offset += Int64(count)
                }
            }
            if ftruncate(output, off_t(offset)) != 0 { throw BlobStoreError.io(temporary, errno) }
            close(output)
            let sha1 = Self.hex(hasher.finalize())
            let target = path(forSHA1: sha1)
            if access(target, F_OK) == 0 {
                unlink(temporary)
            } else {
                try install(temporary, at: target)
            }
            return (sha1, offset)
        } catch {
            close(output)
            unlink(temporary)
            throw error
        }
    }

    /// `lseek` whences from Linux's <unistd.h>, which Glibc's module leaves out (they need _GNU_SOURCE).
    private static let seekData: Int32 = 3
    private static let seekHole: Int32 = 4

    /// The next data extent at or after `offset`: (start, end); (size, size) when only a hole is left.
    private static func nextExtent(_ input: Int32, from offset: Int64, size: Int64, source: String) throws
        -> (Int64, Int64) {
        let start = lseek(input, off_t(offset), seekData)
        if start < 0 {
            if errno == ENXIO { return (size, size) }
            if errno == EINVAL || errno == EOPNOTSUPP { return (offset, size) }
            throw BlobStoreError.io(source, errno)
        }
        let end = lseek(input, start, seekHole)
        guard end >= 0 else { throw BlobStoreError.io(source, errno) }
        return (min(Int64(start), size), min(Int64(end), size))
    }

    private static let zeros = [UInt8](repeating: 0, count: chunkSize)

    private static func hashZeros(_ hasher: inout Insecure.SHA1, count: Int64) {
        var remaining = count
        zeros.withUnsafeBytes { bytes in
            while remaining > 0 {
                let step = Int(min(Int64(bytes.count), remaining))
                hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: bytes[0..<step]))
                remaining -= Int64(step)
            }
        }
    }

    /// Reads up to `count` bytes at `offset`; fewer only at the end of the file.
    static func readFully(_ input: Int32, into bytes: UnsafeMutableRawBufferPointer, count: Int, at offset: Int64,
                                  source: String) throws -> Int {
        var done = 0
        while done < count {
            let got = pread(input, bytes.baseAddress! + done, count - done, off_t(offset + Int64(done)))
            if got < 0 {
                if errno == EINTR { continue }
                throw BlobStoreError.io(source, errno)
            }
            if got == 0 { break }
            done += got
        }
        return done
    }

    static func writeFully(_ output: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64, path: String) throws {
        var done = 0
        while done < bytes.count {
            let wrote = pwrite(output, bytes.baseAddress! + done, bytes.count - done, off_t(offset + Int64(done)))
            if wrote < 0 {
                if errno == EINTR { continue }
                throw BlobStoreError.io(path, errno)
            }
            done += wrote
        }
    }

    private func temporaryPath() -> String {
        directory.appendingPathComponent("tmp-\(UUID().uuidString)").path
    }

    /// Renames a finished temporary file to its content address, making the two-letter folder when missing.
    private func install(_ temporary: String, at target: String) throws {
        if rename(temporary, target) == 0 { return }
        guard errno == ENOENT else { throw BlobStoreError.io(target, errno) }
        let folder = (target as NSString).deletingLastPathComponent
        if mkdir(folder, 0o755) != 0 && errno != EEXIST { throw BlobStoreError.io(folder, errno) }
        if rename(temporary, target) != 0 { throw BlobStoreError.io(target, errno) }
    }

    static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(40)
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
