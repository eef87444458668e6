/// An async HTTP client on libcurl's multi interface.
///
/// One driver thread multiplexes every transfer of the client and keeps connections alive for reuse;
/// callers just `await`. Cancelling the awaiting task removes the transfer and throws `CancellationError`.
/// An HTTP error status is a response, not an error; `HTTPError` reports transport and local failures.
public final class HTTPClient: Sendable {
    public let configuration: HTTPClientConfiguration
    private let driver: CurlDriver

    /// Starts the driver thread. Traps only if libcurl itself cannot initialize (no usable curl at all).
    /// Large response bodies are received into memory from `receiveBufferPool`.
    public init(configuration: HTTPClientConfiguration = HTTPClientConfiguration(),
                receiveBufferPool: ReceiveBufferPool = .shared) {
        self.configuration = configuration
        do {
            driver = try CurlDriver(configuration: configuration, pool: receiveBufferPool)
        } catch {
            fatalError("libcurl cannot be initialized: \(error)")
        }
    }

    deinit {
        driver.shutdown()
    }

    /// Performs `request` and returns its final response.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try request.validate()
        let driver = self.driver
        let id = driver.makeID()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                driver.submit(CurlSubmission(id: id, request: request, continuation: continuation))
            }
        } onCancel: {
            driver.cancel(id)
        }
    }

    /// Fails requests in flight with `HTTPError` kind `.shutdown`, rejects new ones and stops the driver
    /// thread. Idempotent; also done when the client is released.
    public func shutdown() {
        driver.shutdown()
    }
}
