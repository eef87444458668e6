import Foundation
import Synchronization
import Testing

@testable import SystemCalls

/// `DedicatedThreadExecutor`: an actor's code and a preferring task's code run on its one thread, never on the
/// cooperative pool, awaits there hold no thread, and the thread ends when the executor is released or idle.
@Suite struct DedicatedThreadExecutorTests {
    /// An actor on its own thread, as the uploader is.
    actor Worker {
        let executor: DedicatedThreadExecutor
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
        private var order: [Int] = []

        init(idleTimeout: Duration = .seconds(2)) {
            executor = DedicatedThreadExecutor(name: "test.worker", idleTimeout: idleTimeout)
        }

        /// Whether this runs on the executor's thread, and the thread's id.
        func whereAmI() -> (onThread: Bool, onPool: Bool, tid: String) {
            (executor.isCurrent, Syscall.isOnCooperativePool, currentThreadID())
        }

        func note(_ value: Int) { order.append(value) }
        var noted: [Int] { order }
    }

    @Test func anActorsCodeRunsOnTheThreadNotOnThePool() async {
        // Idle for a minute before its thread ends: on a loaded machine the two calls may be seconds apart.
        let worker = Worker(idleTimeout: .seconds(60))
        let inside = await worker.whereAmI()
        #expect(inside.onThread)
        #expect(!inside.onPool)
        #expect(Syscall.isOnCooperativePool, "a plain test task does run on the pool")
        #expect(await worker.whereAmI().tid == inside.tid, "one thread")
    }

    @Test func jobsRunOneAtATimeInTheOrderTheyCame() async {
        let worker = Worker()
        for value in 0..<200 { await worker.note(value) }
        #expect(await worker.noted == Array(0..<200))
    }

    /// A task preferring the executor runs its nonisolated code there, also after an await that another thread
    /// resumed, and so do its child tasks; the awaits hold no thread (the actor answers while they wait).
    @Test func aPreferringTaskRunsThereAndItsAwaitsHoldNoThread() async {
        let worker = Worker()
        let executor = worker.executor
        let gate = Gate()
        let task = Task(executorPreference: executor) { () async -> [Bool] in
            var seen = [executor.isCurrent]
            await gate.wait()  // resumed by the test, from another thread
            seen.append(executor.isCurrent)
            let children = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<3 { group.addTask { await resumedElsewhere(); return executor.isCurrent } }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            return seen + children
        }
        await gate.untilWaiting()
        #expect(await worker.whereAmI().onThread, "the actor answers while the task waits")
        gate.open()
        #expect(await task.value == [true, true, true, true, true])
    }

    @Test func theThreadEndsWhenTheExecutorIsReleased() async throws {
        var tids: [String] = []
        for _ in 0..<50 {
            let worker = Worker()
            tids.append(await worker.whereAmI().tid)
        }
        #expect(Set(tids).count == 50, "a thread each")
        try await expectEnded(tids)
    }

    @Test func anIdleThreadEndsAndTheNextJobStartsAnother() async throws {
        let worker = Worker(idleTimeout: .milliseconds(100))
        let first = await worker.whereAmI()
        try await expectEnded([first.tid])
        let second = await worker.whereAmI()
        #expect(second.onThread)
        #expect(second.tid != first.tid)
    }

    /// Waits (5 s at most) until no thread of `tids` is alive.
    private func expectEnded(_ tids: [String]) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        var alive = tids
        while !alive.isEmpty, ContinuousClock.now < deadline {
            alive = alive.filter { FileManager.default.fileExists(atPath: "/proc/self/task/\($0)") }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(alive.isEmpty, "threads still alive: \(alive)")
    }
}

/// The calling thread's id (`/proc/thread-self` is `PID/task/TID`).
private func currentThreadID() -> String {
    ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? "").components(separatedBy: "/").last ?? ""
}

/// An await that a Dispatch thread resumes.
private func resumedElsewhere() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.01) { continuation.resume() }
    }
}

/// One waiter, let go by `open` from another thread.
private final class Gate: Sendable {
    private let state = Mutex<(waiter: CheckedContinuation<Void, Never>?, opened: Bool)>((nil, false))

    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                if state.opened { return true }
                state.waiter = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func untilWaiting() async {
        while state.withLock({ $0.waiter == nil && !$0.opened }) { try? await Task.sleep(for: .milliseconds(5)) }
    }

    func open() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.opened = true
            defer { state.waiter = nil }
            return state.waiter
        }
        DispatchQueue.global().async { waiter?.resume() }
    }
}
