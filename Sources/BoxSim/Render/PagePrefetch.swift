/// What rendering a page of items needs from the store beyond the rows themselves, read in one go. A listing of
/// 1,000 entries with `fields=...,parent,size` would otherwise make a read for each entry (the parent), one
/// recursive query per folder (its size), and more for users, shared links and path collections; each read
/// is a hop to a database queue, which cost most of a page's time. `nil` members were not prefetched (the
/// selected fields do not need them) and are read per item as before.
struct PagePrefetch: Sendable {
    /// Parents and their ancestors, by id.
    var items: [Int64: ItemRecord] = [:]
    var users: [Int64: UserRecord] = [:]
    /// Total size of the active files under each folder of the page.
    var folderSizes: [Int64: Int64]?
    /// Active shared links of the page's items (an item without one is absent).
    var sharedLinks: [Int64: SharedLinkRecord]?
    /// Active files directly in each folder of the page.
    var fileCounts: [Int64: Int]?
    /// The viewer's shared roots, when the page holds another user's items and their parents or paths are asked for.
    var sharedView: SharedView?

    /// The chain from the root folder down to `item`'s parent, when every link of it was prefetched.
    func ancestors(of item: ItemRecord) -> [ItemRecord]? {
        var chain: [ItemRecord] = []
        var next = item.parentID
        while let id = next {
            guard let parent = items[id], chain.count < 10_000 else { return nil }
            chain.append(parent)
            next = parent.parentID
        }
        return chain.reversed()
    }
}
