import Foundation
import Glibc
import Synchronization

/// A thread of its own running one blocking call, that a test can interrupt with a signal.
///
/// `SIGUSR1` gets a handler installed without `SA_RESTART`, so a call blocked in the kernel when it arrives
/// returns `EINTR` (or, having moved some bytes, a short count): what the wrapper must hide.
final class InterruptibleThread<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `thread` is written once before `started` is signalled and read only after it.
    private var thread = pthread_t()
    private let started = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    /// Keeps the thread alive until its value is taken, so a signal never goes to a thread that has ended.
    private let released = DispatchSemaphore(value: 0)
    private let result = Mutex<Value?>(nil)

    static func installHandler() {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in }
        action.sa_flags = 0  // no SA_RESTART: blocked calls fail with EINTR
        sigemptyset(&action.sa_mask)
        sigaction(SIGUSR1, &action, nil)
    }

    init(_ body: @escaping @Sendable () -> Value) {
        Self.installHandler()
        Thread.detachNewThread { [self] in
            // A thread inherits its creator's signal mask, and Swift's pool threads block every signal.
            var unblocked = sigset_t()
            sigemptyset(&unblocked)
            sigaddset(&unblocked, SIGUSR1)
            pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
            thread = pthread_self()
            started.signal()
            let value = body()
            result.withLock { $0 = value }
            finished.signal()
            released.wait()
        }
        started.wait()
    }

    /// Sends `SIGUSR1` to the thread `times` times, `gap` apart (the first after `gap`, once it is blocked).
    func interrupt(times: Int, gap: Duration = .milliseconds(30)) {
        for _ in 0..<times {
            Thread.sleep(forTimeInterval: Double(gap.components.attoseconds) / 1e18 + Double(gap.components.seconds))
            pthread_kill(thread, SIGUSR1)
        }
    }

    /// The body's result, waiting at most 10 s; call it once, after the last `interrupt`.
    func value() -> Value? {
        guard finished.wait(timeout: .now() + 10) == .success else { return nil }
        released.signal()
        return result.withLock { $0 }
    }
}

/// A pipe's two ends, closed when done.
struct Pipe {
    let read: Int32, write: Int32
    init() {
        var ends: [Int32] = [0, 0]
        precondition(pipe(&ends) == 0)
        (read, write) = (ends[0], ends[1])
    }
}
