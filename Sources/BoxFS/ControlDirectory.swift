import BoxAPI
import Foundation

/// The control directory (`.box` by default, option `control_dir=NAME`): Box's own features as read-only
/// folders, reached by name at the mount root and never listed, like ZFS's `.zfs` or NetApp's `.snapshot`.
///
/// - `versions/PATH/`: the mount's folders mirrored; at a file's path a folder with one entry per earlier
///   version of the file (`VersionNames`), readable like the file and cached by its version id.
/// - `trash/`: what Box's trash holds from the mounted tree, at the paths the items had (`ViewTree`).
/// - `search/QUERY/`: looking up any name runs a Box search scoped to the mounted folder; the results sit
///   at their paths in the mount, readable like the files themselves.
///
/// Why never listed: `find`, `rsync -a`, `du` and `grep -r` walk what readdir shows, and each of these views
/// would make them fetch the whole account's history. A name that is only looked up costs nothing until a
/// user asks for it. Why a real Box item of that name wins: the mount must never hide a user's data; the log
/// then says once how to reach the control directory under another name.
///
/// Inodes: Box items count up from 2; status files have bit 63 set, `RefreshFile` bit 62, the commands'
/// channel bit 61; the control directory's nodes have bit 60 set and bits 61-63 clear, counted up from
/// `firstInode` while the kernel references them (`ControlTable`).
public enum ControlDirectory {
    /// The default name: short, hidden from `ls` and globs, and unlikely at the root of a Box account (Box's
    /// own clients create nothing of that name). `control_dir=` changes it.
    public static let defaultName = ".box"

    static let flag: UInt64 = 1 << 60
    static let topBits: UInt64 = 0b1111 << 60
    static let firstInode = flag | 1

    /// Whether `inode` belongs to the control directory.
    static func contains(_ inode: UInt64) -> Bool { inode & topBits == flag }

    /// The three views at the top of the control directory.
    static let versionsName = "versions"
    static let trashName = "trash"
    static let searchName = "search"

    /// How long a file's version list, the trash and a search's results are trusted before Box is asked again.
    /// A file's version list is also asked again as soon as the file has a new current version.
    static let viewTTL: Duration = .seconds(30)
    /// Most search results shown per query (Box pages them by 200).
    static let maxSearchResults = 1000
    /// Most searches whose results are kept at once.
    static let maxCachedSearches = 32
}

/// One node of the control directory the kernel holds.
struct ControlNode: Sendable {
    enum Kind: Sendable {
        /// The control directory itself.
        case top
        /// `trash/` and `search/`.
        case trashRoot, searchRoot
        /// `versions/PATH/` for a folder of the mount (`versions/` itself for the mounted folder).
        case versionsFolder(BoxItem)
        /// `versions/PATH/` for a file: its earlier versions.
        case versionsOfFile(BoxItem)
        /// One earlier version of a file: a read-only file.
        case version(file: BoxItem, BoxFileVersion)
        /// A folder inside the trash or inside a search's results (`path` empty: `search/QUERY/` itself).
        case viewFolder(ViewKey, path: [String])
        /// A file inside the trash or a search's results.
        case viewFile(ViewKey, path: [String], item: BoxItem)
    }

    let inode: UInt64
    var kind: Kind
    var lookupCount: UInt64

    var isDirectory: Bool {
        switch kind {
        case .version, .viewFile: false
        default: true
        }
    }

    /// What names the node, so the same path keeps its inode while the kernel holds it.
    var identity: String { Self.identity(of: kind) }

    static func identity(of kind: Kind) -> String {
        switch kind {
        case .top: "top"
        case .trashRoot: "trash"
        case .searchRoot: "search"
        case .versionsFolder(let folder): "vd:" + folder.id
        case .versionsOfFile(let file): "vf:" + file.id
        case .version(let file, let version): "vv:" + file.id + ":" + version.id
        case .viewFolder(let key, let path): key.identity + "\u{0}d\u{0}" + path.joined(separator: "\u{0}")
        case .viewFile(let key, let path, _): key.identity + "\u{0}f\u{0}" + path.joined(separator: "\u{0}")
        }
    }
}

/// Which path view a `viewFolder`/`viewFile` belongs to.
enum ViewKey: Hashable, Sendable {
    case trash
    case search(String)

    var identity: String {
        switch self {
        case .trash: "t"
        case .search(let query): "s:" + query
        }
    }
}

/// The control directory's nodes by inode: a value type guarded by the `FileSystem`'s `control` mutex
/// (taken alone: never while `tree`, `locals` or `handles` is held, nor the other way round).
struct ControlTable {
    private var nodes: [UInt64: ControlNode] = [:]
    private var inodeByIdentity: [String: UInt64] = [:]
    private var nextInode = ControlDirectory.firstInode

    func node(_ inode: UInt64) -> ControlNode? { nodes[inode] }

    /// Finds or makes the node for `kind` and counts one kernel reference; a known node takes the newer `kind`
    /// (a file's item after a new version, a version's details).
    mutating func remember(_ kind: ControlNode.Kind) -> ControlNode {
        let identity = ControlNode.identity(of: kind)
        if let inode = inodeByIdentity[identity], var node = nodes[inode] {
            node.kind = kind
            node.lookupCount += 1
            nodes[inode] = node
            return node
        }
        let node = ControlNode(inode: nextInode, kind: kind, lookupCount: 1)
        nextInode += 1
        nodes[node.inode] = node
        inodeByIdentity[identity] = node.inode
        return node
    }

    /// The kernel dropped `count` references; a node nobody references is removed.
    mutating func forget(_ inode: UInt64, count: UInt64) {
        guard var node = nodes[inode] else { return }
        node.lookupCount = node.lookupCount > count ? node.lookupCount - count : 0
        if node.lookupCount == 0 {
            nodes[inode] = nil
            if inodeByIdentity[node.identity] == inode { inodeByIdentity[node.identity] = nil }
        } else {
            nodes[inode] = node
        }
    }
}
