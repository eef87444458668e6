import CCurl
import Foundation
import Synchronization

/// A request handed to the driver thread.
struct CurlSubmission: Sendable {
    let id: UInt64
    let request: HTTPRequest
    let continuation: CheckedContinuation<HTTPResponse, any Error>
}

/// The thread-safe half of the driver: callers enqueue work under `inbox`'s lock and wake the driver thread
/// with `curl_multi_wakeup`; `CurlDriverLoop`, on its own thread, owns everything else.
final class CurlDriver: Sendable {
    struct Inbox: Sendable {
        var submissions: [CurlSubmission] = []
        var cancellations: [UInt64] = []
        /// Set once by `shutdown`; afterwards nothing is enqueued and `multi` is not touched here.
        var closed = false
    }

    let inbox = Mutex(Inbox())
    /// The multi handle. Safe to share: other threads only call `curl_multi_wakeup` (thread-safe in libcurl),
    /// and only while holding `inbox`'s lock with `closed` false; the driver thread frees the handle only
    /// after it has seen `closed` under that lock.
    nonisolated(unsafe) let multi: UnsafeMutableRawPointer
    private let nextID = Atomic<UInt64>(1)

    init(configuration: HTTPClientConfiguration, pool: ReceiveBufferPool) throws(HTTPError) {
        try CurlGlobal.ensureInitialized()
        guard let multi = curl_multi_init() else {
            throw HTTPError(kind: .transport, message: "curl_multi_init failed")
        }
        self.multi = multi
        _ = boxfs_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maxConnectionsPerHost)
        _ = boxfs_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, configuration.maxCachedConnections)
        let thread = Thread { [self] in
            CurlDriverLoop(driver: self, configuration: configuration, pool: pool).run()
        }
        thread.name = "boxfs-curl"
        thread.start()
    }

    func makeID() -> UInt64 {
        nextID.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    /// Enqueues a request, or fails it at once if the client is shut down or the calling task is cancelled.
    ///
    /// Checking `Task.isCancelled` under the lock closes the race with `cancel`: a cancellation handler
    /// that ran before this point set the flag first, and one that runs after finds the submission queued.
    func submit(_ submission: CurlSubmission) {
        let rejection: (any Error)? = inbox.withLock { inbox in
            if inbox.closed { return HTTPError.shutDown }
            if Task.isCancelled { return CancellationError() }
            inbox.submissions.append(submission)
            curl_multi_wakeup(multi)
            return nil
        }
        if let rejection {
            submission.continuation.resume(throwing: rejection)
        }
    }

    /// Asks the driver to abandon request `id` (unknown or finished ids are ignored).
    func cancel(_ id: UInt64) {
        inbox.withLock { inbox in
            guard !inbox.closed else { return }
            inbox.cancellations.append(id)
            curl_multi_wakeup(multi)
        }
    }

    /// Stops accepting requests; the driver thread fails the ones in flight and exits. Idempotent.
    func shutdown() {
        inbox.withLock { inbox in
            guard !inbox.closed else { return }
            inbox.closed = true
            curl_multi_wakeup(multi)
        }
    }
}
