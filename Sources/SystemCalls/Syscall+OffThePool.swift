import Dispatch

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
}
