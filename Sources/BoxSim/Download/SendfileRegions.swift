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
/// The prefix never occurs in other bodies (it is random, and only this file makes markers); the request log counts
/// a marker as the bytes of its region (`regionLength`).
enum SendfileRegions {
    struct Region: Equatable {
        var path: String
        var offset: Int64
        var length: Int64
    }

    private static let prefix: [UInt8] = (0..<24).map { _ in UInt8.random(in: 0...255) }
    private static let installed = Atomic<Bool>(false)

    /// Whether connections have the handler (set when the server's channel is built); without it markers are
    /// never made.
    static var isInstalled: Bool { installed.load(ordering: .relaxed) }
    static func markInstalled() { installed.store(true, ordering: .relaxed) }

    /// The marker that stands for `length` bytes of the file at `path` from `offset`.
    static func marker(path: String, offset: Int64, length: Int64) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeBytes(prefix)
        buffer.writeInteger(offset)
        buffer.writeInteger(length)
        buffer.writeString(path)
        return buffer
    }

    /// The region a marker stands for (nil for any other buffer).
    static func region(_ buffer: ByteBuffer) -> Region? {
        guard buffer.readableBytes > prefix.count + 16, buffer.readableBytes <= prefix.count + 16 + Int(PATH_MAX),
              buffer.getBytes(at: buffer.readerIndex, length: prefix.count) == prefix,
              let offset = buffer.getInteger(at: buffer.readerIndex + prefix.count, as: Int64.self),
              let length = buffer.getInteger(at: buffer.readerIndex + prefix.count + 8, as: Int64.self),
              let path = buffer.getString(at: buffer.readerIndex + prefix.count + 16,
                                          length: buffer.readableBytes - prefix.count - 16)
        else { return nil }
        return Region(path: path, offset: offset, length: length)
    }

    /// The body bytes a buffer puts on the wire: a marker's region length, else its own size.
    static func wireLength(_ buffer: ByteBuffer) -> Int64 {
        region(buffer)?.length ?? Int64(buffer.readableBytes)
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
        let fileRegion = FileRegion(fileHandle: handle, readerIndex: Int(region.offset),
                                    endIndex: Int(region.offset + region.length))
        let written = context.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenComplete { result in
            try? handle.close()
            promise?.completeWith(result)
        }
        context.write(wrapOutboundOut(.body(.fileRegion(fileRegion))), promise: written)
    }
}
