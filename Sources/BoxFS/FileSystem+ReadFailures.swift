import Foundation

extension FileSystem {
    /// A read of `inode` failed with EIO (bytes that do not match Box's SHA-1, or Box unreachable): pages the
    /// kernel cached from earlier reads of the file may hold the same bad bytes, so its next open does not
    /// keep them (no `keep_cache`: the kernel drops the inode's pages at that open).
    /// Reads that reach the daemon through the failed handle keep failing (`FileReader` remembers the
    /// mismatch); pages the kernel already holds may still serve handles open now, until that next open.
    public func readFailed(inode: UInt64) {
        openedVersions.withLock { $0[inode] = nil }
    }
}
