import BoxFS
import Dispatch
import Foundation
import Synchronization

/// Tasks serving kernel requests, by number, so that a FUSE interrupt can cancel the right one.
///
/// libfuse may call the interrupt callback while the request is being answered on another thread,
/// so the callback's data is a plain number (never a pointer to an object that could be freed).
///
/// Why interrupts must be answered: once the kernel has handed a request to the daemon, a caller
/// that gets a fatal signal (SIGKILL, or SIGINT/SIGTERM without a handler) sends one INTERRUPT and
/// then waits in uninterruptible sleep (`D`) until the request is answered (fs/fuse/dev.c,
/// `request_wait_answer`); it cannot even be reaped. So an interrupt cancels the serving task,
/// whose cancellation reaches every wait below it (a shared listing, a block in flight, the HTTP
/// transfer, which curl abandons) and turns into EINTR. For requests that change nothing
/// (`answersAtOnce`: lookups, listings, reads, opens) the interrupt is also answered EINTR at once,
/// so even a wait that ignores cancellation (a token refresh, the disk) cannot hold the caller.
/// A change on Box (mkdir, rename, ...) is never answered before it has succeeded or failed.
final class InterruptRegistry: Sendable {
    private enum Entry {
        case pending(FUSERequest?)
        case interrupted
        case running(Task<Void, Never>, FUSERequest?)
    }

    private let entries = Mutex<(next: UInt, byID: [UInt: Entry])>((1, [:]))

    /// Reserves a number for a request before its task starts; `answersAtOnce` is the request an
    /// interrupt answers EINTR immediately (nil: only its task's cancellation answers it).
    func reserve(answersAtOnce request: FUSERequest?) -> UInt {
        entries.withLock { state in
            let id = state.next
            state.next = state.next == UInt.max ? 1 : state.next + 1
            state.byID[id] = .pending(request)
            return id
        }
    }

    /// Records the task serving `id`, cancelling it at once if the interrupt came first.
    func attach(_ id: UInt, _ task: Task<Void, Never>, answersAtOnce request: FUSERequest?) {
        let interrupted = entries.withLock { state -> Bool in
            switch state.byID[id] {
            case .interrupted?: state.byID[id] = nil; return true
            case .pending?: state.byID[id] = .running(task, request); return false
            default: return false  // already finished
            }
        }
        if interrupted {
            task.cancel()
            request?.error(FSError.Kind.interrupted.errno)
        }
    }

    /// Waits, up to `timeout`, until every request handed to a task has been answered; returns whether it was.
    func waitUntilIdle(upTo timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !entries.withLock({ $0.byID.isEmpty }) {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    /// Cancels every task still serving a request (the session has ended; they answer EINTR or nothing).
    func cancelAll() {
        let tasks = entries.withLock { state in
            state.byID.values.compactMap { entry -> Task<Void, Never>? in
                if case .running(let task, _) = entry { task } else { nil }
            }
        }
        tasks.forEach { $0.cancel() }
    }

    func finish(_ id: UInt) {
        entries.withLock { _ = $0.byID.removeValue(forKey: id) }
    }

    /// Called by libfuse's interrupt callback. Never replies on the caller's thread: libfuse calls the
    /// callback from `fuse_req_interrupt_func` with the request's lock held, and a reply there could
    /// free the request under it.
    func interrupt(_ id: UInt) {
        let (task, request) = entries.withLock { state -> (Task<Void, Never>?, FUSERequest?) in
            switch state.byID[id] {
            case .running(let task, let request)?: return (task, request)
            case .pending?: state.byID[id] = .interrupted; return (nil, nil)  // `attach` answers it
            default: return (nil, nil)
            }
        }
        task?.cancel()
        if let request { DispatchQueue.global().async { request.error(FSError.Kind.interrupted.errno) } }
    }
}
