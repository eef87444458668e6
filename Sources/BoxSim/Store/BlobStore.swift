import Crypto
import Foundation

/// File contents, stored once per SHA-1: up to 64 KiB in pack files (`BlobPacks`), larger ones in a file each under
/// `DIR/blobs/ab/<sha1>`; written by streaming, never whole in memory.
struct BlobStore: Sendable {
    let directory: URL
    let packs: BlobPacks
    static let chunkSize = 1 << 20

    init(directory: URL) throws {
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        packs = try BlobPacks(directory: directory.appendingPathComponent("packs"))
    }

    func path(forSHA1 sha1: String) -> String {
        directory.appendingPathComponent(String(sha1.prefix(2))).appendingPathComponent(sha1).path
    }
}

enum BlobStoreError: Error, CustomStringConvertible {
    case cannotOpen(String, Int32)
    case io(String, Int32)

    var description: String {
        switch self {
        case .cannotOpen(let path, let code): "cannot open \(path): \(String(cString: strerror(code)))"
        case .io(let path, let code): "I/O error on \(path): \(String(cString: strerror(code)))"
        }
    }
}

/// Streams bytes into a temporary file in the blob store, then moves it to its content address.
/// Used by one task at a time (not Sendable).
final class BlobWriter {
    private let store: BlobStore
    private let temporaryPath: String
    private let descriptor: Int32
    private var hasher = Insecure.SHA1()
    private(set) var size: Int64 = 0
    private var closed = false

    init(store: BlobStore) throws {
        self.store = store
        temporaryPath = store.directory.appendingPathComponent("tmp-\(UUID().uuidString)").path
        descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw BlobStoreError.cannotOpen(temporaryPath, errno) }
    }

    func append(_ bytes: UnsafeRawBufferPointer) throws {
        hasher.update(bufferPointer: bytes)
        var offset = 0
        while offset < bytes.count {
            let written = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw BlobStoreError.io(temporaryPath, errno)
            }
            offset += written
        }
        size += Int64(bytes.count)
    }

    /// Closes the temporary file and returns the SHA-1 (hex) of what was written (the file stays until
    /// `install`, `move(to:)` or `discard`).
    func finish() -> String {
        if !closed {
            close(descriptor)
            closed = true
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// Stores the finished file under its content: appended to a pack when small (the temporary file is
    /// removed; the caller records the returned place in the transaction that uses the blob), else moved to its
    /// content address (nil).
    func install(sha1: String) throws -> PackedBlob? {
        guard size <= BlobPacks.maxPackedSize else {
            try move(to: store.path(forSHA1: sha1))
            return nil
        }
        defer { discard() }
        let input = open(temporaryPath, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw BlobStoreError.cannotOpen(temporaryPath, errno) }
        defer { close(input) }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        let count = try bytes.withUnsafeMutableBytes { buffer in
            try BlobStore.readFully(input, into: buffer, count: Int(size), at: 0, source: temporaryPath)
        }
        guard count == Int(size) else { throw BlobStoreError.io(temporaryPath, EIO) }
        return try bytes.withUnsafeBytes { try store.packs.append($0) }
    }

    /// Moves the finished file to `target` (e.g. an upload-session part), creating its folder.
    func move(to target: String) throws {
        let folder = (target as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        if rename(temporaryPath, target) != 0 { throw BlobStoreError.io(target, errno) }
    }

    func discard() {
        if !closed {
            close(descriptor)
            closed = true
        }
        unlink(temporaryPath)
    }
}
