import Dispatch
import Foundation
import Glibc
import Synchronization

/// An executor that runs its jobs one at a time, in the order they come, on a thread of its own: never on Swift's
/// cooperative pool (one thread per core, two on the machines boxfs is built on), so an actor whose code makes
/// calls that wait on the disk (a journal's SQLite writes, each synced) stalls only itself, not every other task
/// of the process (FUSE replies waiting on async work, downloads, the event stream).
///
/// As an actor's `unownedExecutor` it runs all of the actor's isolated code. As a task's executor preference
/// (`Task(executorPreference:)`, `withTaskExecutorPreference`) it also runs that task's nonisolated async code,
/// and its child tasks'. An `await` that waits (on the network, a sleep) suspends as on any executor: the thread
/// goes on with the next job, and the continuation comes back as a new job. On Linux a `DispatchSerialQueue` is no
/// `SerialExecutor`, hence this.
///
/// The thread lives while there is work: it ends once it has waited `idleTimeout` with nothing to run, or as soon
/// as its queue is empty after the executor itself is released (its actor, and the tasks that preferred it, are
/// gone); a job that comes after it ended starts a new one. So nothing needs shutting down, and an owner that is
/// never released (a reference cycle in a test) leaves no thread behind for longer than `idleTimeout`.
public final class DedicatedThreadExecutor: SerialExecutor, TaskExecutor {
    private let runner: Runner

    /// `name` names the thread (`top -H`, a debugger; at most 15 bytes are kept).
    public init(name: String, idleTimeout: Duration = .seconds(2)) {
        runner = Runner(name: name, idleTimeout: idleTimeout)
    }

    deinit { runner.stop() }

    public func enqueue(_ job: consuming ExecutorJob) {
        runner.add(UnownedJob(job), serial: asUnownedSerialExecutor(), task: asUnownedTaskExecutor())
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    public func checkIsolated() {
        precondition(isCurrent, "not on the thread of executor \(runner.name)")
    }

    /// Whether the calling thread is this executor's, running one of its jobs.
    public var isCurrent: Bool { runner.isCurrent }

    /// Whether the calling thread is any `DedicatedThreadExecutor`'s.
    public static var isOnAnyExecutorThread: Bool { pthread_getspecific(runnerKey) != nil }
}

/// The thread-local that marks a thread as a runner's (its value: the runner).
private let runnerKey: pthread_key_t = {
    var key = pthread_key_t()
    precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
    return key
}()

extension DedicatedThreadExecutor {
    /// The queue and its thread, apart from the executor so that the thread never keeps the executor alive.
    ///
    /// Locks: `state` is a leaf (no other lock is taken while it is held, and no job runs under it).
    private final class Runner: Sendable {
        struct Job: Sendable {
            let job: UnownedJob
            let serial: UnownedSerialExecutor
            let task: UnownedTaskExecutor
        }

        private struct State {
            var jobs: [Job] = []
            /// A thread is running `loop` (it may be about to end; it sets this false as it does).
            var running = false
            /// The thread waits (or is about to wait) on `wake`: the next job signals it.
            var sleeping = false
            /// The executor is gone: the thread ends once the queue is empty.
            var stopping = false
        }

        let name: String
        private let idleTimeout: Duration
        private let state = Mutex(State())
        private let wake = DispatchSemaphore(value: 0)

        init(name: String, idleTimeout: Duration) {
            self.name = name
            self.idleTimeout = idleTimeout
        }

        var isCurrent: Bool { pthread_getspecific(runnerKey) == Unmanaged.passUnretained(self).toOpaque() }

        func add(_ job: UnownedJob, serial: UnownedSerialExecutor, task: UnownedTaskExecutor) {
            let (starts, wakes) = state.withLock { state -> (Bool, Bool) in
                state.jobs.append(Job(job: job, serial: serial, task: task))
                defer { state.running = true; state.sleeping = false }
                return (!state.running, state.sleeping)
            }
            if wakes { wake.signal() }
            if starts { startThread() }
        }

        func stop() {
            let wakes = state.withLock { state -> Bool in
                state.stopping = true
                defer { state.sleeping = false }
                return state.sleeping
            }
            if wakes { wake.signal() }
        }

        private func startThread() {
            let thread = Thread { [self] in loop() }
            thread.name = name
            thread.start()
        }

        private enum Step {
            case run([Job])
            case wait
            case end
        }

        private func loop() {
            pthread_setspecific(runnerKey, Unmanaged.passUnretained(self).toOpaque())
            defer { pthread_setspecific(runnerKey, nil) }
            var idle = false
            while true {
                let step = state.withLock { state -> Step in
                    state.sleeping = false
                    if !state.jobs.isEmpty {
                        defer { state.jobs = [] }
                        return .run(state.jobs)
                    }
                    if state.stopping || idle {
                        state.running = false
                        return .end
                    }
                    state.sleeping = true
                    return .wait
                }
                switch step {
                case .run(let jobs):
                    idle = false
                    for job in jobs { job.job.runSynchronously(isolatedTo: job.serial, taskExecutor: job.task) }
                case .wait:
                    idle = wake.wait(timeout: .now() + .nanoseconds(Int(idleTimeout.nanoseconds))) == .timedOut
                case .end:
                    return
                }
            }
        }
    }
}

extension Duration {
    fileprivate var nanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}
