import Foundation

/// Times Box does not keep, kept by the mount in memory (gone at unmount). A value type guarded by
/// the `FileSystem`'s mutex; no I/O here.
struct LocalTimes {
    /// Access times set through the mount (`touch -a`, `utimensat`), by inode: Box has no atime.
    /// Dropped when the kernel forgets the inode; without one, the access time is the modification time.
    var accessed: [UInt64: Date] = [:]
    /// When entries were last added to, removed from or renamed in a folder through the mount, by Box
    /// folder id. A folder's mtime and ctime are the later of this and Box's times: Box need not move a
    /// folder's own times when its entries change, and `stat` must show the change at once.
    var entriesChanged: [String: Date] = [:]
}
