import Synchronization

/// Tasks serving kernel requests, by number, so that a FUSE interrupt can cancel the right one.
///
/// libfuse may call the interrupt callback while the request is being answered on another thread,
/// so the callback's data is a plain number (never a pointer to an object that could be freed).
final class InterruptRegistry: Sendable {
    private enum Entry {
        case pending
        case interrupted
        case running(Task<Void, Never>)
    }

    private let entries = Mutex<(next: UInt, byID: [UInt: Entry])>((1, [:]))

    /// Reserves a number for a request before its task starts.
    func reserve() -> UInt {
        entries.withLock { state in
            let id = state.next
            state.next = state.next == UInt.max ? 1 : state.next + 1
            state.byID[id] = .pending
            return id
        }
    }

    /// Records the task serving `id`, cancelling it at once if the interrupt came first.
    func attach(_ id: UInt, _ task: Task<Void, Never>) {
        let interrupted = entries.withLock { state -> Bool in
            switch state.byID[id] {
            case .interrupted?: state.byID[id] = nil; return true
            case .pending?: state.byID[id] = .running(task); return false
            default: return false  // already finished
            }
        }
        if interrupted { task.cancel() }
    }

    func finish(_ id: UInt) {
        entries.withLock { _ = $0.byID.removeValue(forKey: id) }
    }

    func interrupt(_ id: UInt) {
        let task = entries.withLock { state -> Task<Void, Never>? in
            switch state.byID[id] {
            case .running(let task)?: return task
            case .pending?: state.byID[id] = .interrupted; return nil
            default: return nil
            }
        }
        task?.cancel()
    }
}
