import BoxAPI

/// What a node of the tree stands for: a Box item, a file that exists only here, or nothing any more.
///
/// Design: the inode table keys its nodes by this value, never by a string that a prefix would have to tell
/// apart, so a node's kind is known by its type: code that talks to Box takes the Box id out of `.box` and must
/// say what it does with the other cases. The three cases never meet:
/// - `.box(id)`: an item Box has (a folder, a file, or a file's local content that goes up as its next version);
/// - `.local(number)`: a file Box does not have yet, by its `LocalFiles` number; its first upload landing rebinds
///   the inode to `.box` of what landed (`InodeTable.rebind`), so the inode, the open handles and the kernel's
///   caches stay;
/// - `.detached(inode)`: the kernel still holds the inode of an item that is gone (deleted, replaced by a
///   rename); it stands for no id, so a later lookup of the item makes a fresh inode.
///
/// Still to come (issue 26 step 3, second half): a local file's item is shown through listings and nodes as a
/// `BoxItem`, whose id for a file new to Box is the made-up one `LocalFiles.localID` writes, read back into a
/// `NodeID` in one place only (`init(itemID:)`).
enum NodeID: Hashable, Sendable, CustomStringConvertible {
    case box(String)
    case local(UInt64)
    case detached(UInt64)

    /// The id of an item the core shows: `.local` for a file new to Box, else `.box`.
    init(itemID: String) {
        self = LocalFiles.localNumber(itemID).map(NodeID.local) ?? .box(itemID)
    }

    init(_ item: BoxItem) { self.init(itemID: item.id) }

    /// The Box id, or nil for a node Box does not know.
    var boxID: String? { if case .box(let id) = self { id } else { nil } }

    var isDetached: Bool { if case .detached = self { true } else { false } }

    var description: String {
        switch self {
        case .box(let id): "Box item \(id)"
        case .local(let number): "local file \(number)"
        case .detached(let inode): "detached inode \(inode)"
        }
    }
}
