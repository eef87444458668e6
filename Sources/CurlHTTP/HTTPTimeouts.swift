/// Time limits for one request.
///
/// Large bodies get no total limit by default: instead a transfer that moves fewer than `lowSpeedLimit`
/// bytes per second for `lowSpeedTime` is aborted, so a slow but healthy 10 GiB download completes
/// while a stalled one fails (transiently) instead of hanging.
public struct HTTPTimeouts: Sendable, Hashable {
    /// Limit for establishing the connection (TCP and TLS).
    public var connect: Duration
    /// Bytes per second below which the transfer counts as stalled.
    public var lowSpeedLimit: Int
    /// How long the transfer may stay below `lowSpeedLimit` (whole seconds; rounded up).
    public var lowSpeedTime: Duration
    /// Limit for the whole request, if any.
    public var total: Duration?

    public init(
        connect: Duration = .seconds(10),
        lowSpeedLimit: Int = 1,
        lowSpeedTime: Duration = .seconds(30),
        total: Duration? = nil
    ) {
        self.connect = connect
        self.lowSpeedLimit = lowSpeedLimit
        self.lowSpeedTime = lowSpeedTime
        self.total = total
    }
}

extension Duration {
    /// Milliseconds, rounded up so a short positive duration never becomes 0 ("no limit" to curl).
    var curlMilliseconds: Int {
        let (seconds, attoseconds) = components
        let perMillisecond: Int64 = 1_000_000_000_000_000
        let milliseconds = Int(seconds) * 1000 + Int((attoseconds + perMillisecond - 1) / perMillisecond)
        return max(milliseconds, 1)
    }

    /// Whole seconds, rounded up, at least 1.
    var curlSeconds: Int {
        (curlMilliseconds + 999) / 1000
    }
}
