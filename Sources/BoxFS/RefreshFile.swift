import Foundation

/// `boxfs refresh`: every folder of the mount answers two names that are never listed,
/// `<folder>/.boxfs\refresh` and `<folder>/.boxfs\refresh-recursive`. Opening one drops what the mount
/// holds for that folder (and, recursive, for every folder below it whose listing is cached), tells the
/// kernel to forget those names and inodes, lists the folder again, and only then answers the open; the
/// file reads `{"listed":N}` (folders listed again).
///
/// Why a name in the folder itself rather than one control file at the root fed with a path: the kernel
/// resolves the folder (relative paths, `..`, symlinks, bind mounts, a mountpoint below a subfolder) and
/// reports a missing one before the daemon is asked, so the daemon parses nothing; and an open is one
/// synchronous request that returns after the refresh, with no write/flush/release ordering to rely on.
/// Box forbids `\` in names, so no Box item can shadow either name (as with `StatusFile`).
///
/// The kernel only hands an inode to `open`, so the folder is encoded in the control file's inode: bit 62
/// set (Box items count up from 2; the status files sit at the top, with bit 63 set), the folder's inode
/// shifted left by one, and the low bit for recursive.
public enum RefreshFile {
    public static let name = ".boxfs\\refresh"
    public static let recursiveName = ".boxfs\\refresh-recursive"

    private static let flag: UInt64 = 1 << 62
    private static let topBits: UInt64 = 0b11 << 62

    /// The control file's inode for the folder `folder`.
    static func inode(folder: UInt64, recursive: Bool) -> UInt64 {
        flag | (folder << 1) | (recursive ? 1 : 0)
    }

    /// The folder and mode a control file's inode names; nil for any other inode.
    static func target(of inode: UInt64) -> (folder: UInt64, recursive: Bool)? {
        guard inode & topBits == flag else { return nil }
        return ((inode & ~topBits) >> 1, inode & 1 == 1)
    }

    /// Whether `name` is one of the two control names (and which).
    static func recursive(forName name: String) -> Bool? {
        switch name {
        case Self.name: return false
        case recursiveName: return true
        default: return nil
        }
    }
}
