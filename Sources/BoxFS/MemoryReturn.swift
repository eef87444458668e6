import Dispatch
import Foundation
import Synchronization

/// Gives freed memory back to the operating system after much of the tree was dropped at once (the kernel
/// forgetting its inodes, listings evicted). glibc keeps freed blocks in its heaps for reuse, so without this the
/// daemon's resident size stays at its peak however little it holds; `malloc_trim(0)` returns the free pages.
///
/// The trim runs on a queue of its own a second after the last large release (a `drop_caches` arrives as many
/// batches of forgets), never on a FUSE thread or under the tree's lock: it walks every heap.
public final class MemoryReturn: Sendable {
    /// Entries (listing entries and nodes) dropped since the last trim.
    private let released = OwnLock("the memory return's count", (count: 0, scheduled: false))
    /// Below this many dropped entries nothing is worth giving back.
    static let threshold = 20_000
    static let delay: DispatchTimeInterval = .seconds(1)

    /// `count` entries were dropped.
    func noteReleased(_ count: Int) {
        guard count > 0 else { return }
        let schedule = released.withLock { state -> Bool in
            state.count += count
            guard state.count >= Self.threshold, !state.scheduled else { return false }
            state.scheduled = true
            return true
        }
        guard schedule else { return }
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + Self.delay) { [self] in
            released.withLock { $0 = (0, false) }
            Self.trim()
        }
    }

    /// glibc's `malloc_trim`, looked up at run time (its header is not part of Swift's Glibc module); nil
    /// under another C library.
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()

    static func trim() {
        _ = mallocTrim?(0)
    }

    /// glibc's `mallopt`, looked up the same way.
    private static let mallocOption: (@convention(c) (Int32, Int32) -> Int32)? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "mallopt") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
    }()

    /// Keeps glibc to two heaps (`M_ARENA_MAX`), called once at start. By default glibc gives threads up to
    /// eight heaps per core; the tree's allocations (a listing decoded on one pool thread, its entries freed on
    /// another) then leave freed blocks spread over all of them, which stay resident however little the daemon
    /// holds. An allocation contended on two heaps costs little next to a FUSE request.
    public static func limitHeaps() {
        _ = mallocOption?(-8, 2)  // M_ARENA_MAX
    }
}
