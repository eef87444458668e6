import Synchronization

/// Bytes sent per entry, written by upload tasks and read by `status`. A Mutex guards the table.
final class ProgressBoard: Sendable {
    private let table = Mutex<[Int64: (done: Int64, total: Int64)]>([:])

    func set(_ id: Int64, done: Int64, total: Int64) {
        table.withLock { $0[id] = (done, total) }
    }

    func add(_ id: Int64, bytes: Int64) {
        table.withLock { table in
            if let current = table[id] { table[id] = (current.done + bytes, current.total) }
        }
    }

    func get(_ id: Int64) -> (done: Int64, total: Int64)? {
        table.withLock { $0[id] }
    }

    func remove(_ id: Int64) {
        _ = table.withLock { $0.removeValue(forKey: id) }
    }
}
