import Synchronization

/// Runs at most one task per key at a time; concurrent callers for the same key await the same result.
///
/// Used so that many lookups in one folder cost one listing request.
///
/// Each caller waits on its own: a caller whose task is cancelled (a FUSE interrupt, a killed `ls`)
/// stops waiting at once with `CancellationError`, while the others keep waiting for the shared
/// work. When the last caller has left, the work is cancelled if `cancelsWhenAbandoned` (a listing
/// nobody waits for is not worth a hung connection), and the key is free at once: the next caller
/// starts afresh instead of joining a fetch that may never end. Work that must finish once begun
/// (journaling) keeps running without waiters.
final class SingleFlight<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private typealias Waiter = CheckedContinuation<Value, any Error>

    private struct Flight {
        let number: UInt64
        /// nil until the task that runs the work is created (just after the flight is registered).
        var task: Task<Void, Never>?
        var waiters: [UInt64: Waiter] = [:]
    }

    private struct State {
        var nextNumber: UInt64 = 1
        var flights: [Key: Flight] = [:]

        mutating func number() -> UInt64 {
            defer { nextNumber &+= 1 }
            return nextNumber
        }
    }

    private let state = OwnLock("a single flight's runs", State())
    private let cancelsWhenAbandoned: Bool

    init(cancelsWhenAbandoned: Bool = true) {
        self.cancelsWhenAbandoned = cancelsWhenAbandoned
    }

    func run(_ key: Key, _ operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let waiter = state.withLock { $0.number() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Waiter) in
                // Checking `Task.isCancelled` under the lock closes the race with `leave`: a cancellation
                // handler that ran before this point set the flag first, one that runs later finds the waiter.
                let joined = state.withLock { state -> (flight: UInt64, isNew: Bool)? in
                    if Task.isCancelled { return nil }
                    if state.flights[key] != nil {
                        state.flights[key]?.waiters[waiter] = continuation
                        return (state.flights[key]!.number, false)
                    }
                    var flight = Flight(number: state.number())
                    flight.waiters[waiter] = continuation
                    state.flights[key] = flight
                    return (flight.number, true)
                }
                guard let joined else { return continuation.resume(throwing: CancellationError()) }
                if joined.isNew { start(key, flight: joined.flight, operation) }
            }
        } onCancel: {
            leave(key, waiter)
        }
    }

    private func start(_ key: Key, flight number: UInt64, _ operation: @escaping @Sendable () async throws -> Value) {
        let task = Task {
            let result: Result<Value, any Error>
            do { result = .success(try await operation()) } catch { result = .failure(error) }
            let waiters = state.withLock { state -> [Waiter] in
                guard let flight = state.flights[key], flight.number == number else { return [] }
                state.flights[key] = nil
                return Array(flight.waiters.values)
            }
            waiters.forEach { $0.resume(with: result) }
        }
        let abandoned = state.withLock { state -> Bool in
            guard state.flights[key]?.number == number else { return true }
            state.flights[key]?.task = task
            return false
        }
        // Everybody left before the task was recorded (or it already finished: cancelling is harmless).
        if abandoned, cancelsWhenAbandoned { task.cancel() }
    }

    /// A caller was cancelled: it stops waiting; the work stops too if nobody else waits for it.
    private func leave(_ key: Key, _ waiter: UInt64) {
        let (continuation, orphan) = state.withLock { state -> (Waiter?, Task<Void, Never>?) in
            guard let continuation = state.flights[key]?.waiters.removeValue(forKey: waiter) else { return (nil, nil) }
            guard let flight = state.flights[key], flight.waiters.isEmpty, cancelsWhenAbandoned else {
                return (continuation, nil)
            }
            state.flights[key] = nil
            return (continuation, flight.task)
        }
        continuation?.resume(throwing: CancellationError())
        orphan?.cancel()
    }
}
