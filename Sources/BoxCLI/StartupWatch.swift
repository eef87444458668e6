import Foundation
import Synchronization

/// Says what a slow mount start is waiting for: a server that does not answer would otherwise leave the
/// user looking at a silent command until the request deadline. After `firstAfter` seconds, and then every
/// `every` seconds, one line names the endpoint (the one the account chose, once known) and how long it has
/// been waiting.
final class StartupWatch: Sendable {
    private let endpoint: Mutex<String>
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(endpoint: String, firstAfter: Double = 5, every: Double = 15, say: @escaping @Sendable (String) -> Void) {
        self.endpoint = Mutex(endpoint)
        let started = ContinuousClock.now
        task.withLock { task in
            task = Task { [weak self] in
                var next = firstAfter
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(Int(next * 1000)))
                    guard !Task.isCancelled, let self else { return }
                    let waited = Int((ContinuousClock.now - started).components.seconds)
                    say("still waiting for \(self.endpoint.withLock { $0 }) to answer (signing in and finding the "
                        + "folder to mount) after \(waited) s; Ctrl-C stops")
                    next = every
                }
            }
        }
    }

    /// The endpoint the mount talks to, once the account has chosen it.
    func waitingFor(_ endpoint: String) { self.endpoint.withLock { $0 = endpoint } }

    func cancel() { task.withLock { $0?.cancel() } }
}
