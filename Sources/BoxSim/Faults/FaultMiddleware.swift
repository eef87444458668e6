import Hummingbird

/// Applies the control API's fault rules: latency, error answers, 429 bursts, a connection cut in the middle
/// of a body, a bandwidth cap. Runs inside the request-log middleware, so faults are logged too.
struct FaultMiddleware: RouterMiddleware {
    typealias Context = BoxContext
    let faults: FaultInjector

    struct ConnectionCut: Error {}

    func handle(_ request: Request, context: BoxContext,
                next: (Request, BoxContext) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if path.hasPrefix("/_control/") { return try await next(request, context) }
        let decision = faults.decide(method: request.method.rawValue, path: path)
        if decision.latencyMilliseconds > 0 {
            try await Task.sleep(nanoseconds: UInt64(decision.latencyMilliseconds) * 1_000_000)
        }
        if let error = decision.error { throw error }
        let reshapes = decision.cutAfterBytes != nil || decision.bandwidthBytesPerSecond != nil
        if reshapes { context.state.update { $0.bodyReshaped = true } }
        var response = try await next(request, context)
        guard reshapes else { return response }
        let body = response.body
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            try await body.write(ShapedBodyWriter(parent: writer, cutAfter: decision.cutAfterBytes,
                                                  bytesPerSecond: decision.bandwidthBytesPerSecond))
        }
        return response
    }
}

/// Slows a body down to a byte rate and/or fails it after some bytes (the server then drops the connection).
struct ShapedBodyWriter: ResponseBodyWriter {
    var parent: any ResponseBodyWriter
    let cutAfter: Int64?
    let bytesPerSecond: Int64?
    private var written: Int64 = 0
    private let started = ContinuousClock.now

    init(parent: any ResponseBodyWriter, cutAfter: Int64?, bytesPerSecond: Int64?) {
        self.parent = parent
        self.cutAfter = cutAfter
        self.bytesPerSecond = bytesPerSecond
    }

    mutating func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        while buffer.readableBytes > 0 {
            var sliceLength = buffer.readableBytes
            if let rate = bytesPerSecond { sliceLength = min(sliceLength, max(1024, Int(rate / 10))) }
            if let cut = cutAfter { sliceLength = min(sliceLength, Int(max(0, cut - written))) }
            if sliceLength == 0 { throw FaultMiddleware.ConnectionCut() }
            let slice = buffer.readSlice(length: sliceLength)!
            try await parent.write(slice)
            written += Int64(sliceLength)
            if let rate = bytesPerSecond {
                let due = Duration.seconds(Double(written) / Double(rate))
                let elapsed = ContinuousClock.now - started
                if due > elapsed { try await Task.sleep(for: due - elapsed) }
            }
        }
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        if let cut = cutAfter, written >= cut { throw FaultMiddleware.ConnectionCut() }
        try await parent.finish(trailingHeaders)
    }
}
