import Foundation

/// Says what a slow mount start is waiting for: a server that does not answer would otherwise leave the
/// user looking at a silent command until the request deadline. After `firstAfter` seconds, and then every
/// `every` seconds, one line names the endpoint and how long it has been waiting.
enum StartupWatch {
    static func start(
        endpoint: String, firstAfter: Double = 5, every: Double = 15, say: @escaping @Sendable (String) -> Void
    ) -> Task<Void, Never> {
        let started = ContinuousClock.now
        return Task {
            var next = firstAfter
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(Int(next * 1000)))
                if Task.isCancelled { return }
                let waited = Int((ContinuousClock.now - started).components.seconds)
                say("still waiting for \(endpoint) to answer (signing in and finding the folder to mount) after "
                    + "\(waited) s; Ctrl-C stops")
                next = every
            }
        }
    }
}
