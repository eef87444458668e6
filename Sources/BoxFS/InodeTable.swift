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
        /// What the node stands for (see `NodeID`); `item` is what it showed last, kept when it is detached.
        var id: NodeID
        var item: BoxItem
        var parentInode: UInt64
        var lookupCount: UInt64
        /// A file's last look-up in `useOrder` (0 for folders, which are never evicted: see `InodeTable+NodeEviction`).
        var lastUse: UInt64 = 0

        /// The id of the item it stands for, as the local files and the listings know it; nil once detached.
        var itemID: String? { id.isDetached ? nil : item.id }
    }

    /// A folder's children as Box last listed them, indexed so that a lookup, an event about one item and the
    /// mount's own additions cost the same in a folder of 100,000 entries as in one of ten.
    struct Listing {
        private(set) var items: [BoxItem]
        /// Positions by name, keyed by `BoxName.key` (exact scalars, unlike a `String` key).
        private var indexByName: [[UInt8]: Int]
        /// Positions by Box id.
        private var indexByID: [String: Int]
        /// Hashes of the names as Box compares them (case folded): a name whose hash is not here is free on Box.
        /// Only ever a superset (a renamed entry leaves its old hash), so a hit is checked by a scan.
        private var foldedNameHashes: Set<Int>
        var fetchedAt: ContinuousClock.Instant
        /// Fetched before a change Box reported on its event stream: shown once, then fetched again.
        var isStale = false
        /// Read from the tree on disk and not yet confirmed by the event stream's catch-up (`FileSystem+DiskTree`):
        /// never fresh, but held for when Box is out of reach.
        var awaitingCatchUp = false

        init(items: [BoxItem], fetchedAt: ContinuousClock.Instant) {
            self.items = items
            self.fetchedAt = fetchedAt
            var byName: [[UInt8]: Int] = [:], byID: [String: Int] = [:], folded = Set<Int>()
            byName.reserveCapacity(items.count)
            byID.reserveCapacity(items.count)
            for (position, item) in items.enumerated() {
                byName[BoxName.key(item.name)] = position
                byID[item.id] = position
                folded.insert(BoxName.foldedHash(item.name))
            }
            indexByName = byName
            indexByID = byID
            foldedNameHashes = folded
        }

        func position(of name: String) -> Int? { indexByName[BoxName.key(name)] }

        func item(id: String) -> BoxItem? { indexByID[id].map { items[$0] } }

        /// Whether an entry may have a name Box counts as the same as `name` (false: surely none has).
        func mayHoldOnBox(_ name: String) -> Bool { foldedNameHashes.contains(BoxName.foldedHash(name)) }

        /// Puts `item` in, replacing the entry with its id or its name. A new item is appended and an entry
        /// changed in place (no rebuild: the mount's own uploads land here one by one); only an item that
        /// takes the name of another entry makes the listing be built again.
        mutating func upsert(_ item: BoxItem) {
            let key = BoxName.key(item.name)
            switch (indexByID[item.id], indexByName[key]) {
            case (nil, nil):
                indexByID[item.id] = items.count
                indexByName[key] = items.count
                items.append(item)
            case (let position?, let named) where named == nil || named == position:
                let old = BoxName.key(items[position].name)
                if old != key { indexByName[old] = nil }
                indexByName[key] = position
                items[position] = item
            default:
                rebuild(items.filter { $0.id != item.id && !BoxName.same($0.name, item.name) } + [item])
                return
            }
            foldedNameHashes.insert(BoxName.foldedHash(item.name))
        }

        /// Takes the entry with `id` out (the rest keep their order).
        mutating func remove(id: String) {
            guard let position = indexByID[id] else { return }
            // The others keep their order (readdir offsets): positions after it move down by one. The folded
            // hashes may stay a superset, so they are not computed again (an `rm` in a large folder).
            indexByID[id] = nil
            let key = BoxName.key(items[position].name)
            if indexByName[key] == position { indexByName[key] = nil }
            items.remove(at: position)
            for (index, item) in items.enumerated().dropFirst(position) {
                indexByID[item.id] = index
                indexByName[BoxName.key(item.name)] = index
            }
        }

        /// These items instead, indexed afresh; when it was fetched and whether it is stale stay.
        private mutating func rebuild(_ kept: [BoxItem]) {
            let (stale, awaiting) = (isStale, awaitingCatchUp)
            self = Listing(items: kept, fetchedAt: fetchedAt)
            isStale = stale
            awaitingCatchUp = awaiting
        }
    }

    static let rootInode: UInt64 = 1

    var nodes: [UInt64: Node] = [:]
    var inodeByID: [NodeID: UInt64] = [:]
    var listings = ListingCache()
    private var nextInode: UInt64 = 2
    /// The mount's own changes to listings while fetches are in flight (see `OwnChanges`).
    var ownChanges = OwnChanges()
    /// The `OwnChanges` number current when Box's event stream last reported a change in a folder: a listing
    /// fetch that began before it may miss the change (see `store(listing:)`).
    var remoteChangeMarks: [String: UInt64] = [:]
    /// Folders with a cached listing whose node the kernel forgot, and when (see `InodeTable+Eviction`).
    var forgottenFolders: [String: ContinuousClock.Instant] = [:]
    /// Listings loaded from the disk wait for the event stream's first catch-up (`FileSystem+DiskTree`).
    var catchUpPending = false
    /// The files among `nodes`, least recently looked up first (see `InodeTable+NodeEviction`).
    var useOrder = NodeUseOrder()

    init(root: BoxItem) {
        nodes[Self.rootInode] = Node(
            inode: Self.rootInode, id: .box(root.id), item: root, parentInode: Self.rootInode, lookupCount: 1)
        inodeByID[.box(root.id)] = Self.rootInode
    }

    func node(_ inode: UInt64) -> Node? { nodes[inode] }

    /// The listing of a folder if it is younger than `ttl` (then it counts as used now, for the eviction).
    mutating func freshListing(folderID: String, ttl: Duration, now: ContinuousClock.Instant) -> Listing? {
        guard let listing = listings[folderID], !listing.isStale, !listing.awaitingCatchUp, now - listing.fetchedAt < ttl
        else { return nil }
        listings.touch(folderID)
        return listing
    }

    /// Stores a listing and refreshes the nodes the kernel already knows among its items. Returns the
    /// inodes whose content changed on Box (another version), whose kernel caches must be dropped.
    ///
    /// `since` is what `beginListingFetch` answered before the listing was asked for: the mount's own
    /// changes to the folder after that (an upload that landed, a rename, a delete) are laid over the
    /// listing, because Box may have answered before it had them. Without this a listing fetched while
    /// an upload lands rolls the file back to its older size and version.
    mutating func store(
        listing fetched: [BoxItem], folderID: String, at now: ContinuousClock.Instant, since: UInt64? = nil
    ) -> [UInt64] {
        var listing = Listing(items: fetched, fetchedAt: now)
        if let since { ownChanges.replay(on: &listing, folderID: folderID, after: since) }
        let items = listing.items
        if let since, let mark = remoteChangeMarks[folderID], mark > since { listing.isStale = true }
        listings[folderID] = listing
        listings.touch(folderID)
        var changed: [UInt64] = []
        for item in items {
            guard let inode = inodeByID[NodeID(item)], let old = nodes[inode]?.item else { continue }
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
    ///
    /// A node the kernel already knows keeps its item: `item` may come from an older listing or a
    /// directory snapshot taken before a write, and only `store(listing:)` and the mount's own changes
    /// may move a node's item (readdirplus would otherwise hand the kernel an older size).
    mutating func remember(_ item: BoxItem, parentInode: UInt64) -> Node {
        let id = NodeID(item)
        if let inode = inodeByID[id], var node = nodes[inode] {
            node.parentInode = inode == Self.rootInode ? inode : parentInode
            node.lookupCount += 1
            noteUse(of: &node)
            nodes[inode] = node
            return node
        }
        var node = Node(inode: nextInode, id: id, item: listed(item) ?? item, parentInode: parentInode, lookupCount: 1)
        nextInode += 1
        noteUse(of: &node)
        nodes[node.inode] = node
        inodeByID[id] = node.inode
        return node
    }

    /// The item with `item`'s id as its folder's cached listing holds it now, if it is still there under
    /// that name. A directory snapshot can be older than an upload that landed since (its item still
    /// names the version the local copy started from); a node made from it would open that version.
    func listed(_ item: BoxItem) -> BoxItem? {
        guard let folderID = item.parentID, let listing = listings[folderID],
              let position = listing.position(of: item.name), listing.items[position].id == item.id
        else { return nil }
        return listing.items[position]
    }

    /// The kernel dropped `count` references; a node nobody references is removed (the root never is), and is
    /// answered. The node indexes are built again smaller once most of their room is empty: a
    /// `Dictionary` keeps its capacity however many entries leave it (see `compactNodeIndexes`).
    @discardableResult
    mutating func forget(_ inode: UInt64, count: UInt64) -> Node? {
        guard inode != Self.rootInode, var node = nodes[inode] else { return nil }
        node.lookupCount = node.lookupCount > count ? node.lookupCount - count : 0
        guard node.lookupCount == 0 else {
            nodes[inode] = node
            return nil
        }
        nodes[inode] = nil
        if inodeByID[node.id] == inode { inodeByID[node.id] = nil }
        compactNodeIndexes()
        return node
    }
}
