import CompressNIO
import Crypto
import Foundation
import Hummingbird
import Logging

/// An in-process Hummingbird server on 127.0.0.1, port 0, whose routes let tests check what curl sent and
/// what it received. This file imports Hummingbird only (not CurlHTTP): both define `HTTPRequest`.
final class TestServer: Sendable {
    let baseURL: String
    private let task: Task<Void, any Error>

    private init(baseURL: String, task: Task<Void, any Error>) {
        self.baseURL = baseURL
        self.task = task
    }

    /// Stopping by cancellation makes Hummingbird log errors about closed channels; tests want silence.
    private static let quietLogger: Logger = {
        var logger = Logger(label: "curlhttp-test-server")
        logger.logLevel = .critical
        return logger
    }()

    static func start() async throws -> TestServer {
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: TestRoutes.makeRouter(),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: quietLogger
        )
        let task = Task { try await app.runService(gracefulShutdownSignals: []) }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            task.cancel()
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "test server did not start"])
        }
        return TestServer(baseURL: "http://127.0.0.1:\(port)", task: task)
    }

    func url(_ path: String) -> String { baseURL + path }

    func stop() async {
        task.cancel()
        _ = await task.result
    }
}

/// Runs `body` with a fresh server, always stopping it.
func withTestServer<T>(_ body: (TestServer) async throws -> T) async throws -> T {
    let server = try await TestServer.start()
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

/// A request context that remembers the client's port.
struct PeerContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let peerPort: Int

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        peerPort = source.channel.remoteAddress?.port ?? 0
    }
}

/// `HTTPField` itself is not re-exported by Hummingbird; reach it through `HTTPFields`.
typealias FieldName = HTTPFields.Element.Name

enum TestRoutes {
    struct CutConnection: Error {}

    static func makeRouter() -> Router<PeerContext> {
        let router = Router(context: PeerContext.self)
        router.get("/peer") { _, context in
            // The client's port: equal for two requests exactly when they shared a connection.
            Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "\(context.peerPort)")))
        }
        router.get("/hello") { _, _ in
            var headers = HTTPFields()
            headers[FieldName("X-Greeting")!] = "hi"
            headers.append(HTTPFields.Element(name: FieldName("X-Multi")!, value: "one"))
            headers.append(HTTPFields.Element(name: FieldName("X-Multi")!, value: "two"))
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "hello, world")))
        }
        router.head("/hello") { _, _ in
            Response(status: .ok, headers: [.contentLength: "12", FieldName("X-Greeting")!: "hi"])
        }
        router.get("/missing") { _, _ in
            Response(status: .notFound, body: .init(byteBuffer: ByteBuffer(string: "nothing here")))
        }
        router.get("/redirect") { _, _ in
            Response(status: .found, headers: [.location: "/hello"], body: .init(byteBuffer: ByteBuffer(string: "moved")))
        }
        router.get("/redirect-to") { request, _ in
            let location = request.uri.queryParameters.get("location") ?? "/"
            return Response(status: .found, headers: [.location: location])
        }
        router.get("/gzip") { request, _ in
            // A text of 64 KiB, compressed when the client takes gzip (as Box does for JSON answers).
            let text = ByteBuffer(string: String(repeating: "boxfs gzip answer\n", count: 3641))
            guard request.headers[.acceptEncoding]?.contains("gzip") == true else {
                return Response(status: .ok, body: .init(byteBuffer: text))
            }
            var plain = text
            let compressed = try plain.compress(with: .gzip())
            return Response(status: .ok, headers: [.contentEncoding: "gzip", .contentLength: String(compressed.readableBytes)],
                            body: .init(byteBuffer: compressed))
        }
        router.get("/echo-headers") { request, _ in
            let lines = request.headers.map { "\($0.name.canonicalName): \($0.value)" }.joined(separator: "\n")
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: lines)))
        }
        router.get("/file") { request, context in
            let path = request.uri.queryParameters.get("path") ?? ""
            let file = FileIO()
            guard let offset = request.uri.queryParameters.get("offset", as: Int.self),
                  let length = request.uri.queryParameters.get("length", as: Int.self)
            else {
                return Response(status: .ok, body: try await file.loadFile(path: path, context: context))
            }
            let range = offset...(offset + length - 1)
            return Response(status: .ok, body: try await file.loadFile(path: path, range: range, context: context))
        }
        for method in [HTTPRequest.Method.post, .put, .patch] {
            router.on("/digest", method: method) { request, _ in try await digest(request) }
        }
        router.get("/dribble") { _, _ in
            // One byte every 100 ms: slow enough that a test can cancel mid-body.
            Response(status: .ok, body: ResponseBody(contentLength: 1000) { writer in
                for _ in 0..<1000 {
                    try await writer.write(ByteBuffer(string: "."))
                    try await Task.sleep(for: .milliseconds(100))
                }
                try await writer.finish(nil)
            })
        }
        router.get("/stall") { _, _ in
            // Ten bytes, then silence for 3 s: a stalled transfer for the low-speed limit.
            Response(status: .ok, body: ResponseBody(contentLength: 100) { writer in
                try await writer.write(ByteBuffer(string: "0123456789"))
                try await Task.sleep(for: .seconds(3))
                try await writer.write(ByteBuffer(repeating: 0x41, count: 90))
                try await writer.finish(nil)
            })
        }
        router.get("/cut") { _, _ in
            // Promises 1 MiB, sends 64 KiB, then fails: the server closes the connection mid-body.
            Response(status: .ok, body: ResponseBody(contentLength: 1 << 20) { writer in
                try await writer.write(ByteBuffer(repeating: 0x42, count: 64 << 10))
                throw CutConnection()
            })
        }
        return router
    }

    /// Answers "LENGTH SHA1HEX" for the request body, streamed, plus the framing headers it saw.
    private static func digest(_ request: Request) async throws -> Response {
        var hasher = Insecure.SHA1()
        var length = 0
        for try await buffer in request.body {
            hasher.update(data: buffer.readableBytesView)
            length += buffer.readableBytes
        }
        let hex = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        var headers = HTTPFields()
        headers[FieldName("X-Seen-Method")!] = request.method.rawValue
        headers[FieldName("X-Seen-Content-Length")!] = request.headers[.contentLength] ?? "none"
        headers[FieldName("X-Seen-Transfer-Encoding")!] = request.headers[.transferEncoding] ?? "none"
        headers[FieldName("X-Seen-Expect")!] = request.headers[.expect] ?? "none"
        headers[FieldName("X-Seen-Content-Type")!] = request.headers[.contentType] ?? "none"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "\(length) \(hex)")))
    }
}
