import Foundation
import Synchronization
import Testing

@testable import SystemCalls

/// Work that waits (an `fsync`) must not hold a thread of Swift's cooperative pool, which has one per core.
@Suite struct OffThePoolTests {
    final class Arrivals: Sendable {
        let count = Mutex(0)
        let allThere = DispatchSemaphore(value: 0)
    }

    /// More blocking calls than the pool has threads, each waiting until all have started: on the pool they
    /// could never all start (each wait would fail after 5 s); off it, every one gets a thread.
    @Test func moreBlockingCallsThanCoresAllRunAtOnce() async {
        let callers = ProcessInfo.processInfo.activeProcessorCount + 2
        let arrivals = Arrivals()
        let met = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<callers {
                group.addTask {
                    await Syscall.offThePool { () -> Bool in
                        if arrivals.count.withLock({ $0 += 1; return $0 }) == callers {
                            for _ in 0..<callers { arrivals.allThere.signal() }
                        }
                        return arrivals.allThere.wait(timeout: .now() + 5) == .success
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(met == Array(repeating: true, count: callers))
    }

    @Test func theWorksValueAndTypedErrorComeBack() async {
        #expect(await Syscall.offThePool { 42 } == 42)
        let failure = SystemCallError(operation: "fsync", path: "/x", errno: EIO)
        await #expect(throws: failure) {
            try await Syscall.offThePool { () throws(SystemCallError) -> Int in throw failure }
        }
    }
}
