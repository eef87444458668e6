import BoxAPI
import Foundation
import Testing

@testable import BoxFS

/// The core's one lock-order rule (`LockOrder`): a core lock is taken only while the thread holds none. Broken, it
/// stops a debug build; these tests ask the check what it would say instead of letting it stop the test process.
@Suite struct LockOrderTests {
    @Test func aLockTakenAloneIsAllowedAndLetGoOfAfterwards() {
        let lock = OwnLock("a test lock", 0)
        #expect(LockOrder.violation(taking: "another lock") == nil)
        lock.withLock { $0 += 1 }
        #expect(LockOrder.violation(taking: "another lock") == nil, "the lock is let go of after its body")
    }

    #if DEBUG
    @Test func aLockTakenWhileAnotherIsHeldIsNamedWithBoth() {
        let lock = OwnLock("a test lock", 0)
        let message = lock.withLock { _ in LockOrder.violation(taking: "another lock") }
        #expect(message == "lock order: another lock taken while a test lock is held (core locks are taken alone)")
    }

    @Test func theStateLockTakenAgainByTheThreadThatHoldsItIsNamed() {
        let root = BoxItem(id: "0", kind: .folder, name: "All Files")
        let state = CoreStateLock(CoreState(tree: InodeTable(root: root)))
        let message = state.withLock { _ in LockOrder.violation(taking: "the core state lock") }
        #expect(message == "lock order: the core state lock taken while the core state lock is held (core locks are taken alone)")
        let viaPart = state.part(\.handles).withLock { _ in LockOrder.violation(taking: "the core state lock") }
        #expect(viaPart != nil, "a part's view takes the same lock")
    }

    @Test func anotherThreadHoldingALockDoesNotCount() {
        let lock = OwnLock("a test lock", 0)
        let taken = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            lock.withLock { _ in
                taken.signal()
                done.wait()
            }
        }
        taken.wait()
        #expect(LockOrder.violation(taking: "another lock") == nil)
        done.signal()
    }
    #endif
}
