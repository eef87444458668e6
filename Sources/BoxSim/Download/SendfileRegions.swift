import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// Download bodies sent with `sendfile(2)`, as nginx does, instead of read into memory and written back out.
///
/// Hummingbird's body writer only carries `ByteBuffer`s, but NIO's HTTP/1 encoder below it also accepts a
/// `FileRegion`, which NIO sends with sendfile. So the download route writes a small *marker* buffer
/// (a per-process random prefix, then the range and the path) and `SendfileRegionHandler`, placed in each
/// connection's pipeline just above NIO's encoder (see `BoxSimHTTPChannel`), swaps it for the file region.
/// `perf` showed the two copies (file → buffer → socket) at a third of boxsim's CPU time on a 1 GiB download.
/// The prefix never occurs in other bodies (it is random, and only this file makes markers).
///
/// The request log counts what really went out: each marker carries a ticket for a `SendfileProgress`, the handler
/// sends the region in 1 MiB pieces and adds each piece to it once NIO has written it, and the log's body writer
/// waits until the region is written or the connection closed (a client that leaves early is logged with the
/// bytes it was sent, to the piece).
enum SendfileRegions {
    struct Region: Equatable {
        var path: String
        var offset: Int64
        var length: Int64
        var ticket: UInt64
    }

    static let pieceLength = 1 << 20
    private static let prefix: [UInt8] = (0..<24).map { _ in UInt8.random(in: 0...255) }
    private static let installed = Atomic<Bool>(false)
    private static let tickets = Mutex<(next: UInt64, progress: [UInt64: SendfileProgress])>((1, [:]))

    /// Whether connections have the handler (set when the server's channel is built); without it markers are
    /// never made.
    static var isInstalled: Bool { installed.load(ordering: .relaxed) }
    static func markInstalled() { installed.store(true, ordering: .relaxed) }

    /// The marker that stands for `length` bytes of the file at `path` from `offset`.
    /// Registers the region's progress until `finishedProgress(ticket:)`.
    static func marker(path: String, offset: Int64, length: Int64) -> ByteBuffer {
        let ticket = tickets.withLock { tickets in
            defer { tickets.next += 1 }
            tickets.progress[tickets.next] = SendfileProgress()
            return tickets.next
        }
        var buffer = ByteBuffer()
        buffer.writeBytes(prefix)
        buffer.writeInteger(offset)
        buffer.writeInteger(length)
        buffer.writeInteger(ticket)
        buffer.writeString(path)
        return buffer
    }

    static func progress(ticket: UInt64) -> SendfileProgress? {
        tickets.withLock { $0.progress[ticket] }
    }

    /// Forgets a region's progress (once its marker has been written and waited for).
    static func finishedProgress(ticket: UInt64) {
        _ = tickets.withLock { $0.progress.removeValue(forKey: ticket) }
    }

    /// The region a marker stands for (nil for any other buffer).
    static func region(_ buffer: ByteBuffer) -> Region? {
        guard buffer.readableBytes > prefix.count + 24, buffer.readableBytes <= prefix.count + 24 + Int(PATH_MAX),
              buffer.getBytes(at: buffer.readerIndex, length: prefix.count) == prefix,
              let offset = buffer.getInteger(at: buffer.readerIndex + prefix.count, as: Int64.self),
              let length = buffer.getInteger(at: buffer.readerIndex + prefix.count + 8, as: Int64.self),
              let ticket = buffer.getInteger(at: buffer.readerIndex + prefix.count + 16, as: UInt64.self),
              let path = buffer.getString(at: buffer.readerIndex + prefix.count + 24,
                                          length: buffer.readableBytes - prefix.count - 24)
        else { return nil }
        return Region(path: path, offset: offset, length: length, ticket: ticket)
    }
}

/// The bytes of one sendfile region written so far; finished once every piece was written or failed, or the
/// connection closed. Guarded by its mutex.
final class SendfileProgress: Sendable {
    private let state = Mutex<(sent: Int64, finished: Bool, waiters: [CheckedContinuation<Void, Never>])>((0, false, []))

    func add(_ bytes: Int64) { state.withLock { $0.sent += bytes } }

    func finish() {
        let waiters = state.withLock { state in
            state.finished = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    /// The bytes written, once finished.
    func sent() async -> Int64 {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state in
                if !state.finished { state.waiters.append(continuation) }
                return state.finished
            }
            if done { continuation.resume() }
        }
        return state.withLock { $0.sent }
    }
}

/// Replaces marker body parts with the file regions they name (see `SendfileRegions`). The file is opened when its
/// marker arrives (on the event loop: a local open) and closed once NIO has written or failed the region.
final class SendfileRegionHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .body(.byteBuffer(let buffer)) = unwrapOutboundIn(data),
              let region = SendfileRegions.region(buffer)
        else {
            context.write(data, promise: promise)
            return
        }
        let handle: NIOFileHandle
        do {
            handle = try NIOFileHandle(_deprecatedPath: region.path)
        } catch {
            promise?.fail(error)
            return
        }
        let progress = SendfileRegions.progress(ticket: region.ticket)
        var pieces: [EventLoopFuture<Void>] = []
        var start = region.offset
        let end = region.offset + region.length
        repeat {
            let pieceEnd = min(end, start + Int64(SendfileRegions.pieceLength))
            let written = context.eventLoop.makePromise(of: Void.self)
            let length = pieceEnd - start
            written.futureResult.whenSuccess { progress?.add(length) }
            pieces.append(written.futureResult)
            let piece = FileRegion(fileHandle: handle, readerIndex: Int(start), endIndex: Int(pieceEnd))
            context.write(wrapOutboundOut(.body(.fileRegion(piece))), promise: written)
            start = pieceEnd
        } while start < end
        EventLoopFuture.andAllSucceed(pieces, on: context.eventLoop).whenComplete { result in
            try? handle.close()
            progress?.finish()
            promise?.completeWith(result)
        }
    }
}
