/// The inodes no Box item has: the mount's own files and folders (the status and retry files, the refresh and
/// command files every folder answers, the names carrying a command on a read-only mount, and the control
/// directory), told apart from a Box item's inode by its top bits, once (`init`).
///
/// Inode ranges (Box items count up from 2): the status files at the very top (bit 63); `RefreshFile` bit 62;
/// `CommandFile` bit 61 (with bit 60, a query name's; with bit 59, a `WatchFile`); the control directory's nodes bit 60 alone
/// (`ControlDirectory`). `FileSystem+VirtualNodes` answers for them, so the core's own operations see Box items
/// and local files only.
enum VirtualInode: Equatable {
    /// `.boxfs\status` at the root.
    case status
    /// `.boxfs\retry` at the root.
    case retry
    /// `.boxfs\refresh` (or `-recursive`) in the folder `folder`.
    case refresh(folder: UInt64, recursive: Bool)
    /// `.boxfs\command` in the folder `folder`.
    case commandFile(folder: UInt64)
    /// A name carrying a command on a read-only mount (`CommandQueries`).
    case commandQuery
    /// `.boxfs\watch` in the folder `folder` (`WatchFile`).
    case watchFile(folder: UInt64)
    /// A node of the control directory (`ControlDirectory`).
    case control

    /// nil for a Box item's inode (or a local file's).
    init?(_ inode: UInt64) {
        if inode == StatusFile.inode {
            self = .status
        } else if inode == StatusFile.retryInode {
            self = .retry
        } else if let target = RefreshFile.target(of: inode) {
            self = .refresh(folder: target.folder, recursive: target.recursive)
        } else if ControlDirectory.contains(inode) {
            self = .control
        } else if let folder = WatchFile.folder(of: inode) {
            self = .watchFile(folder: folder)
        } else if CommandFile.isQuery(inode) {
            self = .commandQuery
        } else if let folder = CommandFile.folder(of: inode) {
            self = .commandFile(folder: folder)
        } else {
            return nil
        }
    }
}
