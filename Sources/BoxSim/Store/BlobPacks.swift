import Foundation
import Synchronization

/// Where a packed blob's bytes are: pack number and offset (its size is the version's size).
struct PackedBlob: Equatable, Sendable {
    var pack: Int64
    var offset: Int64
}

/// Where to read a blob's bytes from: a file and the offset of the blob's first byte in it (0 for a blob file of
/// its own, the blob's offset for a packed one). Downloads send `offset + range` of `path`.
struct BlobLocation: Equatable, Sendable {
    var path: String
    var offset: Int64
}

/// Small contents (up to `BlobPacks.maxPackedSize`) stored back to back in append-only pack files
/// `DIR/blobs/packs/<n>.pack`, their place recorded in the `packed_blob` table (sha1 → pack, offset).
///
/// Why: a blob file per content costs an inode, a directory entry, a 4 KiB block and a rename; making a million
/// of them was most of a million-entry seed (file creation is the floor there). 64 KiB: below it those per-file
/// costs outweigh the bytes, and a whole download is one read or sendfile of the pack (a range of the pack goes
/// out with sendfile as a blob file does); above it a blob file of its own keeps sparse seeding and large
/// uploads as they were.
///
/// Appends reserve their region under the mutex and write it after, so several threads write at once; the row
/// that names a region is written (by the caller, in the transaction that uses the blob) only once its bytes are
/// in the pack, so a row never points at missing bytes. Bytes no row names (two writers storing the same
/// content, an upload of content already stored, a crash before the row) stay in the pack unused: packs, like
/// blob files, are never rewritten. A pack is closed for appends once it reaches `packLimit`.
final class BlobPacks: Sendable {
    static let maxPackedSize = 64 * 1024
    static let packLimit: Int64 = 1 << 30

    let directory: URL
    /// The pack being appended to, its size (regions reserved included) and the descriptors of full packs, kept
    /// open because a write to one may still be under way.
    private let state: Mutex<(number: Int64, descriptor: Int32, size: Int64, full: [Int32])>

    init(directory: URL) throws {
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let numbers = try FileManager.default.contentsOfDirectory(atPath: directory.path).compactMap { name in
            name.hasSuffix(".pack") ? Int64(name.dropLast(5)) : nil
        }
        let number = numbers.max() ?? 1
        let (descriptor, size) = try Self.open(directory, number)
        state = Mutex((number, descriptor, size, []))
    }

    deinit {
        state.withLock { state in
            for descriptor in state.full + [state.descriptor] { close(descriptor) }
        }
    }

    func path(ofPack number: Int64) -> String {
        directory.appendingPathComponent("\(number).pack").path
    }

    /// Writes `bytes` to the end of the current pack; returns where they are.
    func append(_ bytes: UnsafeRawBufferPointer) throws -> PackedBlob {
        let (number, descriptor, offset) = try state.withLock { state in
            if state.size >= Self.packLimit {
                let next = try Self.open(directory, state.number + 1)
                state = (state.number + 1, next.descriptor, next.size, state.full + [state.descriptor])
            }
            defer { state.size += Int64(bytes.count) }
            return (state.number, state.descriptor, state.size)
        }
        try BlobStore.writeFully(descriptor, bytes, at: offset, path: path(ofPack: number))
        return PackedBlob(pack: number, offset: offset)
    }

    private static func open(_ directory: URL, _ number: Int64) throws -> (descriptor: Int32, size: Int64) {
        let path = directory.appendingPathComponent("\(number).pack").path
        let descriptor = Foundation.open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw BlobStoreError.cannotOpen(path, errno) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw BlobStoreError.io(path, errno) }
        return (descriptor, Int64(info.st_size))
    }
}
