import Foundation

/// What a node is, as the kernel sees it.
public enum NodeKind: Sendable, Equatable {
    case file
    case directory
    /// A Box file `NAME.boxlink` shown as the symbolic link `NAME` (`-o links`; see `FileSystem+Links`).
    case symlink
}

/// Attributes of one node, in the filesystem's own terms (no `struct stat` here: that is the adapter's job).
public struct FileAttributes: Sendable, Equatable {
    public var inode: UInt64
    public var kind: NodeKind
    public var size: UInt64
    /// Content modification time (Box `content_modified_at`, else `modified_at`).
    public var modified: Date
    /// Metadata change time (Box `modified_at`).
    public var changed: Date
    public var created: Date
    /// Access time: Box has none; what `utimensat`/`touch -a` last set (see `LocalTimes`), else `modified`.
    public var accessed: Date
    public var permissions: UInt16
    public var uid: UInt32
    public var gid: UInt32
    /// Preferred I/O size: 1 MiB so `cp` and `cat` issue large reads (see PERFORMANCE.md).
    public var blockSize: UInt32 { 1 << 20 }
    /// Unlinked while open: no name leads to it any more (`st_nlink` 0), yet its descriptors work.
    public var unlinked = false
    public var linkCount: UInt32 { unlinked ? 0 : kind == .directory ? 2 : 1 }
}

/// One entry of a directory listing, with the attributes `readdirplus` hands to the kernel.
public struct DirectoryEntry: Sendable, Equatable {
    public var name: String
    public var attributes: FileAttributes
    /// Where the entry stands in its directory handle; the kernel resumes reading after it.
    public var position: Int
}

/// What `statfs` reports: the account's quota in 4 KiB blocks.
public struct FilesystemStatistics: Sendable, Equatable {
    public var blockSize: UInt64
    public var totalBlocks: UInt64
    public var freeBlocks: UInt64
    public var maxNameLength: UInt64
}
