import Foundation
import Synchronization

/// The core's lock order, in one rule: **a thread takes a lock of the core only while it holds none of them.**
/// `CoreStateLock` guards all of the core's changing state, and every other lock (`OwnLock`) guards one small
/// thing of its own; none is taken inside another, so no order between them can be got wrong. The only lock
/// taken under the state lock is the uploader's `UnansweredUploads` (WriteBack), a leaf that takes nothing.
///
/// A debug build checks the rule at run time, per thread, and stops with both locks' names when it is broken
/// (the alternative is a deadlock, or a window nobody sees), as does the optimized build of `scripts/soak
/// --in-process` (`-DBOXFS_LOCK_ORDER_CHECKS`); a release build of the daemon checks nothing.
enum LockOrder {
    #if DEBUG || BOXFS_LOCK_ORDER_CHECKS
    /// The name of the core lock the thread holds (a `StaticString`'s bytes), or nil.
    private static let held: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "no thread-specific key for the lock order check")
        return key
    }()
    #endif

    /// Called before taking the lock `name`; `release()` after letting it go.
    @inline(__always)
    static func take(_ name: StaticString) {
        #if DEBUG || BOXFS_LOCK_ORDER_CHECKS
        if let violation = violation(taking: name) { preconditionFailure(violation) }
        pthread_setspecific(held, UnsafeRawPointer(name.utf8Start))
        #endif
    }

    /// What taking `name` now would break, said in one line, or nil when the thread holds no core lock (always nil
    /// in a release build, which keeps no record).
    static func violation(taking name: StaticString) -> String? {
        #if DEBUG || BOXFS_LOCK_ORDER_CHECKS
        guard let holding = pthread_getspecific(held) else { return nil }
        let holder = String(cString: holding.assumingMemoryBound(to: CChar.self))
        return "lock order: \(name) taken while \(holder) is held (core locks are taken alone)"
        #else
        return nil
        #endif
    }

    @inline(__always)
    static func release() {
        #if DEBUG || BOXFS_LOCK_ORDER_CHECKS
        pthread_setspecific(held, nil)
        #endif
    }
}

/// A mutex of the core that guards one thing of its own and is taken alone (`LockOrder`, checked in debug builds).
struct OwnLock<Value: ~Copyable>: ~Copyable, Sendable {
    private let mutex: Mutex<Value>
    private let name: StaticString

    init(_ name: StaticString, _ value: consuming sending Value) {
        self.name = name
        self.mutex = Mutex(value)
    }

    borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        LockOrder.take(name)
        defer { LockOrder.release() }
        return try mutex.withLock(body)
    }
}
