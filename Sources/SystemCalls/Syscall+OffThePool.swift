import Dispatch
import Foundation

extension Syscall {
    /// Runs `work`, a call that may wait on the disk (`fsync` above all), on one of Dispatch's threads and
    /// waits for it there, never on a thread of Swift's cooperative pool (one per core: two syncs in progress
    /// would stall every task on this machine).
    public static func offThePool<Value: Sendable, Failure: Error>(
        _ work: @escaping @Sendable () throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        let result: Result<Value, Failure> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: Result { () throws(Failure) in try work() }) }
        }
        return try result.get()
    }

    /// Whether the caller runs in a task on a thread of Swift's cooperative pool, where nothing may wait on the disk:
    /// in a task, and on neither the main thread nor a `DedicatedThreadExecutor`'s. (Work handed to `offThePool`, or
    /// to a queue of its own, runs in no task.) Debug checks of code that must not wait there ask it.
    public static var isOnCooperativePool: Bool {
        withUnsafeCurrentTask { $0 != nil } && !Thread.isMainThread && !DedicatedThreadExecutor.isOnAnyExecutorThread
    }
}
