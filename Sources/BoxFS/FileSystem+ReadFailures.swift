import Foundation

extension FileSystem {
    /// A read of `inode` failed with EIO (bytes that do not match Box's SHA-1, or Box unreachable): pages the
    /// kernel cached from earlier reads of the file may hold the same bad bytes, so its next open does not
    /// keep them (no `keep_cache`: the kernel drops the inode's pages at that open).
    ///
    /// Not invalidated right away: `fuse_lowlevel_notify_inval_inode` waits for pages locked by reads still in
    /// flight, whose replies need the threads such a wait would hold (a mount hung this way in testing).
    public func readFailed(inode: UInt64) {
        openedVersions.withLock { $0[inode] = nil }
    }
}
