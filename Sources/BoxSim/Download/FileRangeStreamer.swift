import Foundation
import Hummingbird
import NIOCore

/// Streams byte ranges of one file into a response body by `pread(2)` in 1 MiB chunks: the path for bodies that a
/// fault rule reshapes (bandwidth cap, connection cut), which must see real bytes; otherwise downloads go out with
/// sendfile (`SendfileRegions`). One instance serves one response body, inside one task (hence not Sendable).
final class FileRangeStreamer {
    static let chunkLength = 1 << 20

    private let descriptor: Int32
    private let path: String

    init(path: String) throws {
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw BlobStoreError.cannotOpen(path, errno) }
        self.path = path
    }

    deinit { close(descriptor) }

    /// Writes the bytes `range` of the file (both bounds included) to `writer`.
    func stream(_ range: ClosedRange<Int64>, to writer: inout any ResponseBodyWriter) async throws {
        var offset = range.lowerBound
        while offset <= range.upperBound {
            let length = Int(min(Int64(Self.chunkLength), range.upperBound - offset + 1))
            try await writer.write(try read(length: length, at: offset))
            offset += Int64(length)
        }
    }

    /// Exactly `length` bytes at `offset` (a short file is an error: the blob changed underneath).
    private func read(length: Int, at offset: Int64) throws -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: length)
        let descriptor = self.descriptor
        let path = self.path
        _ = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { pointer in
            var done = 0
            while done < length {
                let count = pread(descriptor, pointer.baseAddress! + done, length - done, off_t(offset) + off_t(done))
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { throw BlobStoreError.io(path, count < 0 ? errno : EIO) }
                done += count
            }
            return done
        }
        return buffer
    }
}
