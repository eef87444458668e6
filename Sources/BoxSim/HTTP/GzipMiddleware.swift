import CompressNIO
import HTTPTypes
import Hummingbird
import NIOCore

/// Compresses JSON answers with gzip for a client that asks (`Accept-Encoding: gzip`), as Box does: a listing page
/// of 1,000 entries shrinks several times on the wire. Content (downloads, ranges) is never compressed. Inside the
/// fault middleware, so a cut or a wrong byte hits the compressed stream, as on a real link.
struct GzipMiddleware: RouterMiddleware {
    typealias Context = BoxContext

    /// Answers smaller than this go as they are (a gzip header and trailer cost 18 bytes).
    static let minimumSize = 256

    func handle(_ request: Request, context: BoxContext,
                next: (Request, BoxContext) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        guard Self.acceptsGzip(request.headers[.acceptEncoding]),
            response.headers[.contentType]?.hasPrefix("application/json") == true,
            response.headers[.contentEncoding] == nil
        else { return response }
        let collector = BodyCollector()
        try await response.body.write(collector)
        var plain = collector.collected
        guard plain.readableBytes >= Self.minimumSize else {
            response.body = ResponseBody(byteBuffer: plain)
            return response
        }
        let compressed = try plain.compress(with: .gzip())
        response.headers[.contentEncoding] = "gzip"
        response.headers[.contentLength] = String(compressed.readableBytes)
        response.headers[values: .vary] = ["Accept-Encoding"]
        response.body = ResponseBody(byteBuffer: compressed)
        return response
    }

    /// Whether an `Accept-Encoding` value takes gzip (`gzip`, `gzip, deflate`, not `gzip;q=0`).
    static func acceptsGzip(_ value: String?) -> Bool {
        guard let value else { return false }
        return value.split(separator: ",").contains { part in
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard pieces.first == "gzip" || pieces.first == "*" else { return false }
            return !pieces.dropFirst().contains { $0.replacingOccurrences(of: " ", with: "") == "q=0" }
        }
    }
}

/// Gathers a response body written through it (JSON answers are whole in memory already).
private final class BodyCollector: ResponseBodyWriter, @unchecked Sendable {
    // Written by one body writer at a time, then read once it finished: never shared between tasks.
    var collected = ByteBuffer()

    func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        collected.writeBuffer(&buffer)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
