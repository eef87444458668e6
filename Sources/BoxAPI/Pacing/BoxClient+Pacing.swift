extension BoxClient {
    /// Waits for the tokens of the limits `request` counts against (every attempt is a request Box counts).
    /// An upload is background wherever it is made; any other call has its task's priority.
    func pace(_ request: BoxRequest) async throws {
        guard let pacer, request.isAuthorized else { return }
        let paced = PacedLimit.counted(method: request.method.rawValue, url: request.url, endpoints: endpoints)
        guard !paced.isEmpty else { return }
        let priority: CallPriority = paced.contains(.uploadsPerMinute) ? .background : CallPriority.current
        try await pacer.acquire(paced, priority: priority)
    }
}
