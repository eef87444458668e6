import CurlHTTP
import Synchronization

/// Takes the bytes of a streaming download (`BoxClient.download(fileID:range:into:)`) as they arrive.
///
/// Called on the HTTP client's driver thread, which serves every transfer: copy the bytes and
/// return; never block.
public protocol DownloadSink: AnyObject, Sendable {
    /// `bytes` of the file starting at `offset`, inside the requested range and in order within one
    /// response. A retried request delivers the same offsets again. Return false to stop the download.
    func receive(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> Bool
}

/// Turns a 200 or 206 body into bytes at file offsets inside the requested range: a 206 starts where
/// its `Content-Range` says, a 200 (the server ignored `Range`) at 0, and bytes outside the range
/// are skipped. Driver thread only, except `delivered`, read after the transfer finished.
final class RangeBodyAdapter: HTTPBodySink {
    let range: Range<Int64>
    let sink: any DownloadSink
    /// The file offset of the next body byte, and how many bytes of the range the current response delivered.
    private let position = Mutex((next: Int64(0), delivered: Int64(0)))

    init(range: Range<Int64>, sink: any DownloadSink) {
        self.range = range
        self.sink = sink
    }

    var delivered: Int64 { position.withLock { $0.delivered } }

    func responseStarted(status: Int, headers: HTTPHeaders) {
        let start = status == 206
            ? headers["Content-Range"].flatMap { Self.firstByte(ofContentRange: $0) } ?? range.lowerBound : 0
        position.withLock { $0 = (start, 0) }
    }

    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        // Saturating: a `Content-Range` may name any offset up to Int64.max, and the body goes on from there.
        let start = position.withLock { position -> Int64 in
            defer { position.next = Self.adding(position.next, bytes.count) }
            return position.next
        }
        let from = max(start, range.lowerBound), to = min(Self.adding(start, bytes.count), range.upperBound)
        guard from < to else { return true }
        let piece = UnsafeRawBufferPointer(rebasing: bytes[Int(from - start)..<Int(to - start)])
        guard sink.receive(piece, at: from) else { return false }
        position.withLock { $0.delivered += to - from }
        return true
    }

    private static func adding(_ offset: Int64, _ count: Int) -> Int64 {
        let (sum, overflow) = offset.addingReportingOverflow(Int64(count))
        return overflow ? .max : sum
    }

    /// `a` of `bytes a-b/c`.
    static func firstByte(ofContentRange value: String) -> Int64? {
        let trimmed = value.drop { $0 == " " }
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst("bytes ".count).drop { $0 == " " }
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        return Int64(spec[..<dash])
    }
}
