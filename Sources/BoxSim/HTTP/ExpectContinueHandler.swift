import NIOCore
import NIOHTTP1

/// Answers `Expect: 100-continue` with an interim `100 Continue` as soon as the request head arrives
/// (RFC 9110 §10.1.1), so clients that wait for it (curl does, for 1 s, on bodies over 1 MiB and on multipart
/// uploads) send their body at once. NIO and Hummingbird do not send it themselves. The final answer follows
/// as usual; NIO's encoder accepts an interim head before it.
final class ExpectContinueHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data), head.version.major == 1, head.version.minor >= 1,
           head.headers["expect"].contains(where: { $0.lowercased() == "100-continue" }) {
            let interim = HTTPResponseHead(version: head.version, status: .continue)
            context.writeAndFlush(wrapOutboundOut(.head(interim)), promise: nil)
        }
        context.fireChannelRead(data)
    }
}
