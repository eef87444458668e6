import CFuse
import Synchronization

/// Sends cache invalidations to the kernel for a session, and stops doing so once the session ends.
final class KernelNotifier: Sendable {
    // The session pointer (kept as its address) is only used under `session`'s lock, and cleared before the
    // session is destroyed, so a late invalidation can never touch a freed session.
    private let session: Mutex<UInt?>

    init(_ session: OpaquePointer) {
        self.session = Mutex(UInt(bitPattern: session))
    }

    /// Drops the kernel's cached pages and attributes of `inode`.
    func invalidate(inode: UInt64) {
        session.withLock { session in
            guard let address = session, let pointer = OpaquePointer(bitPattern: address) else { return }
            _ = fuse_lowlevel_notify_inval_inode(pointer, fuse_ino_t(inode), 0, 0)
        }
    }

    func close() {
        session.withLock { $0 = nil }
    }
}
