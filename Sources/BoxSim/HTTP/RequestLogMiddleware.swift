import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// The outermost middleware: maps every error to Box's error response, adds `box-request-id`, and records the
/// request in the request log once its body has been written (or the connection failed). A request whose
/// connection a fault rule dropped before the answer is logged with the status it would have had (or 0) and the
/// fault.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = BoxContext
    let log: RequestLog

    func handle(_ request: Request, context: BoxContext,
                next: (Request, BoxContext) async throws -> Response) async throws -> Response {
        let started = Timestamp.now()
        let requestID = context.state.requestID
        var response: Response
        do {
            response = try await next(request, context)
        } catch let cut as FaultMiddleware.ConnectionCut {
            // The connection is closed: no answer goes out (Hummingbird's own error answer fails to write).
            let values = context.state.current
            log.append(RequestLogEntry(
                time: started, method: request.method.rawValue, path: request.uri.path, query: request.uri.query,
                status: values.lostAnswerStatus ?? 0, bytesSent: 0,
                authorization: request.headers[.authorization] != nil,
                boxAPI: request.headers[BoxApiHeader.name] != nil, asUser: request.headers[HTTPField.Name("as-user")!],
                range: request.headers[.range], userID: values.userID, contentRange: request.headers[.contentRange],
                grantType: values.grantType, fault: values.faults.joined(separator: ",")))
            throw cut
        } catch let error as BoxError {
            response = error.response(requestID: requestID)
        } catch let error as HTTPError {
            response = BoxError(error).response(requestID: requestID)
        } catch {
            context.logger.error("unexpected error: \(error)")
            response = BoxError.internalError().response(requestID: requestID)
        }
        response.headers[HTTPField.Name("box-request-id")!] = "0" + requestID
        if request.uri.path.hasPrefix("/_control/") { return response }

        let entry = RequestLogEntry(
            time: started, method: request.method.rawValue, path: request.uri.path, query: request.uri.query,
            status: Int(response.status.code), bytesSent: 0, authorization: request.headers[.authorization] != nil,
            boxAPI: request.headers[BoxApiHeader.name] != nil, asUser: request.headers[HTTPField.Name("as-user")!],
            range: request.headers[.range], userID: nil, contentRange: request.headers[.contentRange])
        let body = response.body
        let state = context.state
        let channel = context.channel
        let log = self.log
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            let counter = ByteCounter()
            defer {
                var record = entry
                record.bytesSent = counter.value
                let values = state.current
                record.userID = values.userID
                record.grantType = values.grantType
                record.fault = values.faults.isEmpty ? nil : values.faults.joined(separator: ",")
                log.append(record)
            }
            try await body.write(CountingBodyWriter(parent: writer, counter: counter, channel: channel))
        }
        return response
    }
}

/// Counts the body bytes handed to the connection (a sendfile marker counts the bytes of its region that NIO wrote).
final class ByteCounter: Sendable {
    private let count = Atomic<Int64>(0)
    var value: Int64 { count.load(ordering: .relaxed) }
    func add(_ bytes: Int64) { count.add(bytes, ordering: .relaxed) }
}

struct CountingBodyWriter: ResponseBodyWriter {
    var parent: any ResponseBodyWriter
    let counter: ByteCounter
    let channel: any Channel

    struct RegionNotSent: Error {}

    mutating func write(_ buffer: ByteBuffer) async throws {
        guard let region = SendfileRegions.region(buffer), let progress = SendfileRegions.progress(ticket: region.ticket)
        else {
            try await parent.write(buffer)
            counter.add(Int64(buffer.readableBytes))
            return
        }
        defer { SendfileRegions.finishedProgress(ticket: region.ticket) }
        try await parent.write(buffer)
        // The handler finishes the progress once every piece was written or failed; should the marker never
        // reach it (the connection closed first), the channel's closing does.
        let channel = self.channel
        let sent = await withTaskGroup(of: Int64?.self) { group in
            group.addTask { await progress.sent() }
            group.addTask {
                while channel.isActive, (try? await Task.sleep(for: .milliseconds(100))) != nil {}
                progress.finish()
                return nil
            }
            var sent: Int64 = 0
            for await result in group {
                if let result {
                    sent = result
                    group.cancelAll()
                }
            }
            return sent
        }
        counter.add(sent)
        if sent < region.length { throw RegionNotSent() }
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        try await parent.finish(trailingHeaders)
    }
}
