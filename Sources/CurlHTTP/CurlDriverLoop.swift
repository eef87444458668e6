import CCurl

/// The driver thread: adds queued transfers to the multi handle, runs `curl_multi_perform` (which calls
/// every transfer's callbacks right here, so no chunk ever hops threads), completes finished transfers
/// and sleeps in `curl_multi_poll` until a socket, a timer or `curl_multi_wakeup` needs it.
final class CurlDriverLoop {
    private let driver: CurlDriver
    private let configuration: HTTPClientConfiguration
    private let pool: ReceiveBufferPool
    /// The only strong references to transfers curl knows about.
    private var active: [UInt64: CurlTransfer] = [:]

    init(driver: CurlDriver, configuration: HTTPClientConfiguration, pool: ReceiveBufferPool) {
        self.driver = driver
        self.configuration = configuration
        self.pool = pool
    }

    private var multi: UnsafeMutableRawPointer { driver.multi }

    func run() {
        while true {
            let (submissions, cancellations, closed) = driver.inbox.withLock { inbox in
                defer {
                    inbox.submissions.removeAll()
                    inbox.cancellations.removeAll()
                }
                return (inbox.submissions, inbox.cancellations, inbox.closed)
            }
            if closed {
                submissions.forEach { $0.continuation.resume(throwing: HTTPError.shutDown) }
                break
            }
            submissions.forEach(start)
            cancellations.forEach(cancel)
            var running: Int32 = 0
            _ = curl_multi_perform(multi, &running)
            completeFinished()
            _ = curl_multi_poll(multi, nil, 0, 1000, nil)
        }
        for id in Array(active.keys) {
            remove(id)?.finish(.failure(HTTPError.shutDown))
        }
        curl_multi_cleanup(multi)
    }

    private func start(_ submission: CurlSubmission) {
        let transfer: CurlTransfer
        do {
            transfer = try CurlTransfer(id: submission.id, request: submission.request, configuration: configuration,
                                        pool: pool)
        } catch {
            submission.continuation.resume(throwing: error)
            return
        }
        transfer.continuation = submission.continuation
        let code = curl_multi_add_handle(multi, transfer.easy)
        guard code == CURLM_OK else {
            let reason = String(cString: curl_multi_strerror(code))
            transfer.finish(.failure(HTTPError(kind: .transport, message: "curl_multi_add_handle failed: \(reason)")))
            return
        }
        active[transfer.id] = transfer
    }

    private func cancel(_ id: UInt64) {
        remove(id)?.finish(.failure(CancellationError()))
    }

    /// Takes a transfer out of curl; after this curl never calls back into it.
    private func remove(_ id: UInt64) -> CurlTransfer? {
        guard let transfer = active.removeValue(forKey: id) else { return nil }
        curl_multi_remove_handle(multi, transfer.easy)
        return transfer
    }

    private func completeFinished() {
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE else { continue }
            let code = message.pointee.data.result  // read before remove_handle invalidates the message
            var context: UnsafeMutableRawPointer?
            _ = boxfs_curl_easy_getinfo_pointer(message.pointee.easy_handle, CURLINFO_PRIVATE, &context)
            guard let context else { continue }
            let id = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().id
            remove(id)?.complete(with: code)
        }
    }
}
