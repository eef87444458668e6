import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypesHTTP1

/// Hummingbird's HTTP/1 child channel plus two handlers at the level of NIO's HTTP/1 parts, just above NIO's
/// codec (below Hummingbird's conversion to HTTP types, where neither could be done): `ExpectContinueHandler`
/// and `SendfileRegionHandler`; and, first in the pipeline, `PeerWatchHandler` (notices a client that has gone).
struct BoxSimHTTPChannel: ServerChildChannel {
    let base: HTTP1Channel

    static func builder() -> HTTPServerBuilder {
        SendfileRegions.markInstalled()
        return HTTPServerBuilder { responder in BoxSimHTTPChannel(base: HTTP1Channel(responder: responder)) }
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1Channel.Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let codec = try pipeline.handler(type: HTTP1ToHTTPServerCodec.self)
            try pipeline.addHandler(ExpectContinueHandler(), position: .before(codec))
            try pipeline.addHandler(SendfileRegionHandler(), position: .before(codec))
            try pipeline.addHandler(PeerWatchHandler(), position: .first)
            return value
        }
    }

    func handle(value: HTTP1Channel.Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
