import NIOCore
import Synchronization

/// Notices that the client has gone (end of its input, or a reset). Hummingbird allows half-closed
/// connections, so the channel stays active after the client's FIN; a stalled fault answer polls this to
/// stop waiting for a client that gave up (`FaultMiddleware.stall`).
final class PeerWatchHandler: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let gone = Atomic<Bool>(false)

    var peerGone: Bool { gone.load(ordering: .relaxed) }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .some(.inputClosed) = event as? ChannelEvent { gone.store(true, ordering: .relaxed) }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        gone.store(true, ordering: .relaxed)
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        gone.store(true, ordering: .relaxed)
        context.fireChannelInactive()
    }

    /// Whether the client of `channel` has gone (true too when the channel has no watcher or is closed).
    static func peerGone(on channel: any Channel) async -> Bool {
        guard channel.isActive, let watcher = try? await channel.pipeline.handler(type: PeerWatchHandler.self).get()
        else { return true }
        return watcher.peerGone
    }
}
