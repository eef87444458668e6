import Hummingbird
import NIOCore

/// Response bodies of the download host: one byte range of a blob, or several as `multipart/byteranges`.
/// Ranges go out with sendfile (`SendfileRegions`) unless `sendfile` is false (a fault rule reshapes the body),
/// then they are read in chunks (`FileRangeStreamer`). A range of the blob is that range moved by the blob's
/// offset in its file (0 for a blob file of its own, its place in the pack for a packed one).
struct DownloadBodies {
    let path: String
    let offset: Int64
    let sendfile: Bool

    init(blob: BlobLocation, context: BoxContext) {
        path = blob.path
        offset = blob.offset
        sendfile = SendfileRegions.isInstalled && !context.state.current.bodyReshaped
    }

    /// The bytes `range` of the file.
    func range(_ range: ClosedRange<Int64>) -> ResponseBody {
        let path = self.path
        let sendfile = self.sendfile
        let inFile = moved(range)
        return ResponseBody(contentLength: Int(range.upperBound - range.lowerBound + 1)) { writer in
            try await Self.write(inFile, path: path, sendfile: sendfile, to: &writer)
            try await writer.finish(nil)
        }
    }

    /// RFC 9110 §14.6: each range as a part with its own `Content-Type` and `Content-Range`, in the order asked.
    /// The exact length is known up front, so the answer has a Content-Length like a single range.
    func multipart(ranges: [ClosedRange<Int64>], size: Int64, boundary: String) -> ResponseBody {
        let headers = ranges.enumerated().map { index, range in
            (index == 0 ? "" : "\r\n") + "--\(boundary)\r\nContent-Type: application/octet-stream\r\n"
                + "Content-Range: bytes \(range.lowerBound)-\(range.upperBound)/\(size)\r\n\r\n"
        }
        let closing = "\r\n--\(boundary)--\r\n"
        let length = headers.reduce(closing.utf8.count) { $0 + $1.utf8.count }
            + ranges.reduce(0) { $0 + Int($1.upperBound - $1.lowerBound + 1) }
        let path = self.path
        let sendfile = self.sendfile
        let inFile = ranges.map(moved)
        return ResponseBody(contentLength: length) { writer in
            for (header, range) in zip(headers, inFile) {
                try await writer.write(ByteBuffer(string: header))
                try await Self.write(range, path: path, sendfile: sendfile, to: &writer)
            }
            try await writer.write(ByteBuffer(string: closing))
            try await writer.finish(nil)
        }
    }

    /// Where the bytes `range` of the blob are in its file.
    private func moved(_ range: ClosedRange<Int64>) -> ClosedRange<Int64> {
        (range.lowerBound + offset)...(range.upperBound + offset)
    }

    private static func write(_ range: ClosedRange<Int64>, path: String, sendfile: Bool,
                              to writer: inout any ResponseBodyWriter) async throws {
        if sendfile {
            try await writer.write(SendfileRegions.marker(path: path, offset: range.lowerBound,
                                                          length: range.upperBound - range.lowerBound + 1))
        } else {
            try await FileRangeStreamer(path: path).stream(range, to: &writer)
        }
    }

    /// A multipart boundary (RFC 2046: up to 70 characters from a safe set; random enough not to occur in the
    /// content by chance).
    static func makeBoundary() -> String {
        "boxsim_" + Store.randomToken(length: 32)
    }
}
