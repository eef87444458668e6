import BoxAPI

/// The cached item tree: inode numbers ↔ Box items, and folder listings.
///
/// A plain value type, guarded by the `FileSystem`'s mutex; every method is synchronous and does no I/O.
///
/// Design: folder listings (keyed by Box folder id) are the source of truth for names and attributes;
/// inode numbers exist only while the kernel holds a reference (its lookup count, honoured through
/// `forget`), plus the root, which is pinned. A Box id keeps its inode while the kernel knows it, so
/// a renamed or moved item keeps its inode.
struct InodeTable {
    struct Node {
        let inode: UInt64
        var item: BoxItem
        var parentInode: UInt64
        var lookupCount: UInt64
    }

    /// A folder's children as Box last listed them.
    struct Listing {
        var items: [BoxItem]
        var indexByName: [String: Int]
        var fetchedAt: ContinuousClock.Instant

        init(items: [BoxItem], fetchedAt: ContinuousClock.Instant) {
            self.items = items
            self.fetchedAt = fetchedAt
            var index: [String: Int] = [:]
            for (position, item) in items.enumerated() { index[item.name] = position }
            self.indexByName = index
        }
    }

    static let rootInode: UInt64 = 1

    var nodes: [UInt64: Node] = [:]
    var inodeByBoxID: [String: UInt64] = [:]
    var listings: [String: Listing] = [:]
    /// Changes this mount made itself (an upload that landed, a new folder, a rename, a delete), by
    /// Box id, with when they were applied here: the item as it is now, or nil once deleted.
    ///
    /// Why: a listing requested before such a change and answered after it shows the item as it was
    /// (an older etag and SHA-1, the old name). Stored as is, it would roll the item back, and the
    /// next version written here would be sent with a stale `If-Match` and taken for someone else's
    /// change (a conflicted copy of the mount's own file). `store(listing:)` lays these over listings
    /// requested before them; they are forgotten after `ownChangeMemory`.
    var ownChanges: [String: (item: BoxItem?, at: ContinuousClock.Instant)] = [:]
    /// Longer than any listing request takes.
    static let ownChangeMemory: Duration = .seconds(600)
    private var nextInode: UInt64 = 2

    init(root: BoxItem) {
        nodes[Self.rootInode] = Node(inode: Self.rootInode, item: root, parentInode: Self.rootInode, lookupCount: 1)
        inodeByBoxID[root.id] = Self.rootInode
    }

    func node(_ inode: UInt64) -> Node? { nodes[inode] }

    /// The listing of a folder if it is younger than `ttl`.
    func freshListing(folderID: String, ttl: Duration, now: ContinuousClock.Instant) -> Listing? {
        guard let listing = listings[folderID], now - listing.fetchedAt < ttl else { return nil }
        return listing
    }

    /// Stores a listing and refreshes the nodes the kernel already knows among its items. Returns the
    /// inodes whose content changed on Box (another version), whose kernel caches must be dropped.
    /// `requestedAt`: when the listing was asked for; the mount's own later changes are laid over it.
    mutating func store(
        listing fetched: [BoxItem], folderID: String, at now: ContinuousClock.Instant,
        requestedAt: ContinuousClock.Instant? = nil
    ) -> [UInt64] {
        ownChanges = ownChanges.filter { now - $0.value.at < Self.ownChangeMemory }
        var items = fetched
        if let requestedAt {
            let newer = ownChanges.filter { $0.value.at >= requestedAt }
            if !newer.isEmpty {
                items.removeAll { newer[$0.id] != nil }
                items += newer.values.compactMap(\.item).filter { $0.parentID == folderID }
            }
        }
        listings[folderID] = Listing(items: items, fetchedAt: now)
        var changed: [UInt64] = []
        for item in items {
            guard let inode = inodeByBoxID[item.id], let old = nodes[inode]?.item else { continue }
            if old.kind == .file, old.contentVersion != item.contentVersion { changed.append(inode) }
            nodes[inode]?.item = item
        }
        return changed
    }

    /// Forgets a listing so the next access fetches it again.
    mutating func invalidateListing(folderID: String) {
        listings[folderID] = nil
    }

    /// Hands an item to the kernel: finds or makes its inode and counts one more kernel reference.
    mutating func remember(_ item: BoxItem, parentInode: UInt64) -> Node {
        if let inode = inodeByBoxID[item.id], var node = nodes[inode] {
            node.item = item
            node.parentInode = inode == Self.rootInode ? inode : parentInode
            node.lookupCount += 1
            nodes[inode] = node
            return node
        }
        let node = Node(inode: nextInode, item: item, parentInode: parentInode, lookupCount: 1)
        nextInode += 1
        nodes[node.inode] = node
        inodeByBoxID[item.id] = node.inode
        return node
    }

    /// The kernel dropped `count` references; a node nobody references is removed (the root never is).
    mutating func forget(_ inode: UInt64, count: UInt64) {
        guard inode != Self.rootInode, var node = nodes[inode] else { return }
        node.lookupCount = node.lookupCount > count ? node.lookupCount - count : 0
        if node.lookupCount == 0 {
            nodes[inode] = nil
            if inodeByBoxID[node.item.id] == inode { inodeByBoxID[node.item.id] = nil }
        } else {
            nodes[inode] = node
        }
    }
}
