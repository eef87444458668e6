import BoxFS
import CFuse
import Dispatch
import Synchronization

/// Sends cache invalidations to the kernel for a session, and stops doing so once the session ends.
///
/// Each invalidation runs on a serial queue of its own, never on Swift's cooperative pool: the
/// kernel may make `fuse_lowlevel_notify_inval_inode` wait for a page locked by a read that is still
/// in flight, and that read's reply needs a pool thread. On a 2-core machine the pool has two
/// threads, so one blocked notification and one thread waiting for this lock would leave no thread
/// to answer the read, and the mount would hang.
final class KernelNotifier: Sendable {
    // The session pointer (kept as its address) is only used under `session`'s lock, and cleared before the
    // session is destroyed, so a late invalidation can never touch a freed session.
    private let session: Mutex<UInt?>
    let queue = DispatchQueue(label: "boxfs.kernel-notifier")

    init(_ session: OpaquePointer) {
        self.session = Mutex(UInt(bitPattern: session))
    }

    /// Drops the kernel's cached pages and attributes of `inode`, soon; returns at once.
    func invalidate(inode: UInt64) {
        queue.async { [self] in
            session.withLock { session in
                guard let address = session, let pointer = OpaquePointer(bitPattern: address) else { return }
                _ = fuse_lowlevel_notify_inval_inode(pointer, fuse_ino_t(inode), 0, 0)
            }
        }
    }

    /// Runs `body` with the session while it exists (on the notifier's queue only).
    func withSession(_ body: (OpaquePointer) -> Void) {
        session.withLock { session in
            guard let address = session, let pointer = OpaquePointer(bitPattern: address) else { return }
            body(pointer)
        }
    }

    /// Calls `done` (on the notifier's queue) once every invalidation queued before has been sent.
    func afterPending(_ done: @escaping @Sendable () -> Void) {
        queue.async { done() }
    }

    func close() {
        session.withLock { $0 = nil }
    }
}

extension KernelNotifier {
    /// Makes the kernel look `change.name` up again in its folder, or tells it the name is gone
    /// (`fuse_lowlevel_notify_delete`, which also drops the child's dentry); soon, on the notifier's queue.
    func invalidate(entry change: KernelEntryChange) {
        queue.async { [self] in
            withSession { session in
                let bytes = Array(change.name.utf8)
                bytes.withUnsafeBufferPointer { buffer in
                    buffer.withMemoryRebound(to: CChar.self) { name in
                        let length = name.count
                        if let child = change.deletedChild {
                            let result = fuse_lowlevel_notify_delete(
                                session, fuse_ino_t(change.parent), fuse_ino_t(child), name.baseAddress, length)
                            // The kernel's entry may name another inode (or none): then just forget the name.
                            if result != 0 {
                                _ = fuse_lowlevel_notify_inval_entry(
                                    session, fuse_ino_t(change.parent), name.baseAddress, length)
                            }
                        } else {
                            _ = fuse_lowlevel_notify_inval_entry(
                                session, fuse_ino_t(change.parent), name.baseAddress, length)
                        }
                    }
                }
            }
        }
    }
}
