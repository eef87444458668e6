import BoxAPI

/// What the kernel must be told after a change reported by Box's event stream was applied to the tree.
struct RemoteChangeEffect {
    /// Names to look up again: (folder inode, name).
    var entries: [(parent: UInt64, name: String)] = []
    /// Names gone, with the inode the kernel may hold for them.
    var deletions: [(parent: UInt64, child: UInt64, name: String)] = []
    /// Inodes whose attributes (and, for files, pages) the kernel must drop.
    var inodes: [UInt64] = []
    /// The changed item's own inode, if the kernel holds it.
    var itemInode: UInt64?
    /// Folders whose listing was dropped.
    var folderIDs: [String] = []
}

/// Changes made elsewhere on Box, as its event stream reports them (see `FileSystem+RemoteChanges`).
extension InodeTable {
    /// The cached listings that hold the item `id`, with the item as each holds it.
    func listingsHolding(id: String) -> [(folderID: String, item: BoxItem)] {
        listings.all.compactMap { folderID, listing in
            listing.item(id: id).map { (folderID, $0) }
        }
    }

    /// Applies a change to `item` (as Box describes it now; `removed`: trashed or deleted) reported by the
    /// event stream. Nothing is done (nil) when the tree already holds exactly this state — the mount's own
    /// upload, rename or delete coming back — or an older one than the tree's, or when the mount knows
    /// neither the item nor its folder. Otherwise every listing that holds the item and the listing of its
    /// new folder are dropped, and the answer says which names and inodes the kernel must forget.
    mutating func applyRemoteChange(_ item: BoxItem, removed: Bool) -> RemoteChangeEffect? {
        let holders = listingsHolding(id: item.id)
        // Listings kept on the disk only (`ListingCache`): the item's new folder's, a removed folder's own, and any
        // that holds the item (its old folder) are not trusted any more, whatever the memory tree makes of it.
        if let parentID = item.parentID { listings.forgetDiskCopy(parentID) }
        if removed, item.kind == .folder { listings.forgetDiskCopy(item.id) }
        listings.noteTouched(itemID: item.id)
        let inode = inodeByID[.box(item.id)]
        let node = inode.flatMap { nodes[$0] }
        if removed {
            guard !holders.isEmpty || node != nil else { return nil }
        } else {
            let known = holders.first?.item ?? node?.item
            if let known, Self.isOlder(item, than: known) { return nil }
            let inNewFolder = holders.count == 1 && holders[0].folderID == item.parentID
            if inNewFolder, Self.sameState(holders[0].item, item), node.map({ Self.sameState($0.item, item) }) ?? true {
                return nil
            }
            // No listing holds it (its folder's was not cached) and the kernel's node is already this state.
            if holders.isEmpty, let node, Self.sameState(node.item, item) { return nil }
            let parentKnown = item.parentID.map { listings[$0] != nil || inodeByID[.box($0)] != nil } ?? false
            guard !holders.isEmpty || node != nil || parentKnown else { return nil }
        }
        var effect = RemoteChangeEffect()
        effect.itemInode = inode
        var folders = holders.map(\.folderID)
        if !removed, let parentID = item.parentID, !folders.contains(parentID) { folders.append(parentID) }
        if removed, item.kind == .folder, listings[item.id] != nil { folders.append(item.id) }
        let mark = ownChanges.mark()
        for folderID in folders {
            listings[folderID] = nil
            remoteChangeMarks[folderID] = mark
            if let folderInode = inodeByID[.box(folderID)] { effect.inodes.append(folderInode) }
        }
        effect.folderIDs = folders
        for holder in holders {
            guard let folderInode = inodeByID[.box(holder.folderID)] else { continue }
            if removed, let inode {
                effect.deletions.append((folderInode, inode, holder.item.name))
            } else {
                effect.entries.append((folderInode, holder.item.name))
            }
        }
        if !removed, let parentID = item.parentID, let folderInode = inodeByID[.box(parentID)] {
            effect.entries.append((folderInode, item.name))
            if let inode { nodes[inode]?.parentInode = folderInode }
        }
        if let inode { effect.inodes.append(inode) }
        return effect
    }

    /// The listing fetch that began at `start` is over (stored or failed). A remote-change mark only matters to a
    /// fetch that began before it (see `store(listing:)`): with no fetch in flight none does, and the marks go, so a
    /// mount following events for days keeps no mark per folder it ever saw change.
    mutating func endListingFetch(_ start: UInt64) {
        ownChanges.endFetch(start)
        guard !remoteChangeMarks.isEmpty else { return }
        if let oldest = ownChanges.oldestFetchInFlight {
            // Fetches overlap without a pause (a busy mount): trimmed now and then, not at each fetch.
            if remoteChangeMarks.count > Self.marksKeptWhileFetching {
                remoteChangeMarks = remoteChangeMarks.filter { $0.value > oldest }
            }
        } else {
            remoteChangeMarks = [:]
        }
    }

    private static let marksKeptWhileFetching = 1024

    /// Forgets every listing (the event stream lost track: nothing cached can be trusted).
    mutating func dropAllListings() {
        let mark = ownChanges.mark()
        for folderID in listings.keys { remoteChangeMarks[folderID] = mark }
        listings.removeAll()
    }

    /// Same name, folder and etag (and sequence id when both have one): nothing changed.
    static func sameState(_ held: BoxItem, _ reported: BoxItem) -> Bool {
        held.name == reported.name && held.etag == reported.etag
            && (held.parentID == nil || reported.parentID == nil || held.parentID == reported.parentID)
            && (held.sequenceID == nil || reported.sequenceID == nil || held.sequenceID == reported.sequenceID)
    }

    /// The event describes an earlier state than the tree holds (Box renders an event's source as it was then).
    static func isOlder(_ reported: BoxItem, than held: BoxItem) -> Bool {
        guard let reportedSequence = reported.sequenceID.flatMap({ Int64($0) }),
              let heldSequence = held.sequenceID.flatMap({ Int64($0) })
        else { return false }
        return reportedSequence < heldSequence
    }
}
