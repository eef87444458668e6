/// Settings shared by every request of one `HTTPClient`.
public struct HTTPClientConfiguration: Sendable, Hashable {
    /// Connections curl keeps open to one host (`CURLMOPT_MAX_HOST_CONNECTIONS`); further transfers queue.
    public var maxConnectionsPerHost: Int
    /// Idle keep-alive connections kept for reuse (`CURLMOPT_MAXCONNECTS`).
    public var maxCachedConnections: Int
    /// Default time limits for requests that set none.
    public var timeouts: HTTPTimeouts
    /// Redirects followed at most, for requests that follow them.
    public var maxRedirects: Int
    public var userAgent: String
    /// curl's receive buffer per transfer: larger means fewer write callbacks per MiB (curl caps it at 10 MiB).
    public var receiveBufferSize: Int
    /// curl's upload buffer per transfer (curl caps it at 2 MiB).
    public var uploadBufferSize: Int

    public init(
        maxConnectionsPerHost: Int = 16,
        maxCachedConnections: Int = 64,
        timeouts: HTTPTimeouts = HTTPTimeouts(),
        maxRedirects: Int = 10,
        userAgent: String = "boxfs",
        receiveBufferSize: Int = 256 * 1024,
        uploadBufferSize: Int = 512 * 1024
    ) {
        self.maxConnectionsPerHost = maxConnectionsPerHost
        self.maxCachedConnections = maxCachedConnections
        self.timeouts = timeouts
        self.maxRedirects = maxRedirects
        self.userAgent = userAgent
        self.receiveBufferSize = receiveBufferSize
        self.uploadBufferSize = uploadBufferSize
    }
}
