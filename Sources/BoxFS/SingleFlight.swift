import Synchronization

/// Runs at most one task per key at a time; concurrent callers for the same key await the same result.
///
/// Used so that many lookups in one folder cost one listing request.
final class SingleFlight<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let running = Mutex<[Key: Task<Value, any Error>]>([:])

    func run(_ key: Key, _ operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let task = running.withLock { tasks in
            if let task = tasks[key] { return task }
            let task = Task { try await operation() }
            tasks[key] = task
            return task
        }
        defer { running.withLock { tasks in if tasks[key] == task { tasks[key] = nil } } }
        return try await task.value
    }
}
