import Hummingbird
import NIOCore

/// Applies the control API's fault rules: latency, error answers, 429 bursts, cut connections (in the request
/// body, in the response body, or after handling: answer lost), stalls, flipped body bytes, a bandwidth cap.
/// Runs inside the request-log middleware, so faults are logged too (`RequestState.Values.faults`).
struct FaultMiddleware: RouterMiddleware {
    typealias Context = BoxContext
    let faults: FaultInjector

    /// Thrown once the connection has been closed on purpose; the request-log middleware logs and rethrows it.
    struct ConnectionCut: Error {}

    func handle(_ request: Request, context: BoxContext,
                next: (Request, BoxContext) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if path.hasPrefix("/_control/") { return try await next(request, context) }
        let decision = faults.decide(method: request.method.rawValue, path: path)
        let state = context.state
        if decision.latencyMilliseconds > 0 {
            try await Task.sleep(nanoseconds: UInt64(decision.latencyMilliseconds) * 1_000_000)
        }
        if let error = decision.error {
            state.update { $0.faults.append("error_status") }
            throw error
        }
        if let stall = decision.stall, stall.afterBytes == nil {
            state.update { $0.faults.append("stall") }
            try await Self.stall(milliseconds: stall.milliseconds, channel: context.channel)
        }
        if let cut = decision.cut, cut.phase == .requestBody {
            state.update { $0.faults.append("cut_request_body") }
            try await Self.readPart(of: request, upTo: cut.afterBytes)
            try await Self.cut(context.channel)
        }
        let reshapes = decision.reshapesBody
        if reshapes { state.update { $0.bodyReshaped = true } }
        var response = try await next(request, context)
        if decision.answerLatencyMilliseconds > 0 {
            try await Task.sleep(nanoseconds: UInt64(decision.answerLatencyMilliseconds) * 1_000_000)
        }
        if decision.cut?.phase == .afterHandling {
            state.update {
                $0.faults.append("cut_after_handling")
                $0.lostAnswerStatus = Int(response.status.code)
            }
            try await Self.cut(context.channel)
        }
        guard reshapes else { return response }
        let body = response.body
        let length = body.contentLength.map(Int64.init)
        func point(_ bytes: Int64?) -> Int64 { bytes ?? Int64.random(in: 0..<max(1, length ?? 1)) }
        let shape = ShapedBodyWriter.Shape(
            cutAfter: decision.cut?.phase == .responseBody ? point(decision.cut?.afterBytes) : nil,
            stallAfter: decision.stall?.afterBytes, stallMilliseconds: decision.stall?.milliseconds,
            corruptAt: (200..<300).contains(response.status.code) ? decision.corrupt.map(point) : nil,
            bytesPerSecond: decision.bandwidthBytesPerSecond)
        let channel = context.channel
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            try await body.write(ShapedBodyWriter(parent: writer, shape: shape, state: state, channel: channel))
        }
        return response
    }

    /// Reads up to `limit` bytes of the request body (nil: a random share of its Content-Length) and drops them.
    static func readPart(of request: Request, upTo limit: Int64?) async throws {
        let declared = request.headers[.contentLength].flatMap { Int64($0) } ?? 0
        let limit = limit ?? Int64.random(in: 0..<max(1, declared))
        var read: Int64 = 0
        guard limit > 0 else { return }
        for try await buffer in request.body {
            read += Int64(buffer.readableBytes)
            if read >= limit { return }
        }
    }

    /// Closes the connection without an answer.
    static func cut(_ channel: any Channel) async throws -> Never {
        try? await channel.close()
        throw ConnectionCut()
    }

    /// Waits `milliseconds` (nil: until the client goes away); throws `ConnectionCut` once the client has gone.
    static func stall(milliseconds: Int?, channel: any Channel) async throws {
        let end = milliseconds.map { ContinuousClock.now + .milliseconds($0) }
        while await !PeerWatchHandler.peerGone(on: channel) {
            if let end, ContinuousClock.now >= end { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        try? await channel.close()
        throw ConnectionCut()
    }
}

/// Reshapes a response body: slows it to a byte rate, flips one byte, stalls after some bytes, or fails it after
/// some bytes (the server then drops the connection). Marks what it did in the request state for the log.
struct ShapedBodyWriter: ResponseBodyWriter {
    struct Shape: Sendable {
        var cutAfter: Int64?
        var stallAfter: Int64?
        var stallMilliseconds: Int?
        var corruptAt: Int64?
        var bytesPerSecond: Int64?
    }

    var parent: any ResponseBodyWriter
    let shape: Shape
    let state: RequestState
    let channel: any Channel
    private var written: Int64 = 0
    private var stalled = false
    private let started = ContinuousClock.now

    init(parent: any ResponseBodyWriter, shape: Shape, state: RequestState, channel: any Channel) {
        self.parent = parent
        self.shape = shape
        self.state = state
        self.channel = channel
    }

    mutating func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        while buffer.readableBytes > 0 {
            var sliceLength = buffer.readableBytes
            if let rate = shape.bytesPerSecond { sliceLength = min(sliceLength, max(1024, Int(rate / 10))) }
            if let cut = shape.cutAfter { sliceLength = min(sliceLength, Int(max(0, cut - written))) }
            if let stall = shape.stallAfter, !stalled {
                if stall <= written {
                    try await stallHere()
                    continue
                }
                sliceLength = min(sliceLength, Int(stall - written))
            }
            if sliceLength == 0 {
                state.update { $0.faults.append("cut_response_body") }
                throw FaultMiddleware.ConnectionCut()
            }
            var slice = buffer.readSlice(length: sliceLength)!
            if let offset = shape.corruptAt, (written..<written + Int64(sliceLength)).contains(offset) {
                let index = slice.readerIndex + Int(offset - written)
                slice.setInteger(slice.getInteger(at: index, as: UInt8.self)! ^ 0xFF, at: index)
                state.update { $0.faults.append("corrupt") }
            }
            try await parent.write(slice)
            written += Int64(sliceLength)
            if let rate = shape.bytesPerSecond {
                let due = Duration.seconds(Double(written) / Double(rate))
                let elapsed = ContinuousClock.now - started
                if due > elapsed { try await Task.sleep(for: due - elapsed) }
            }
        }
    }

    private mutating func stallHere() async throws {
        stalled = true
        state.update { $0.faults.append("stall") }
        try await FaultMiddleware.stall(milliseconds: shape.stallMilliseconds, channel: channel)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        if let cut = shape.cutAfter, written >= cut {
            state.update { $0.faults.append("cut_response_body") }
            throw FaultMiddleware.ConnectionCut()
        }
        if let stall = shape.stallAfter, !stalled, stall <= written { try await stallHere() }
        try await parent.finish(trailingHeaders)
    }
}
