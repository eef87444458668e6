import Foundation

extension FileSystem {
    /// A read of `inode` failed with EIO (bytes that do not match Box's SHA-1, or Box unreachable): pages the
    /// kernel cached from earlier reads of the file may hold the same bad bytes, so its next open does not
    /// keep them (no `keep_cache`: the kernel drops the inode's pages at that open).
    /// Handles open now keep failing the file's reads (`FileReader` remembers the mismatch), so nothing
    /// reads those pages before that next open drops them.
    public func readFailed(inode: UInt64) {
        openedVersions.withLock { $0[inode] = nil }
    }
}
