import BoxAPI
import Foundation
import Logging
import Synchronization
import Transfers
import WriteBack

/// The filesystem core: answers the kernel's questions in terms of Box items.
///
/// It knows nothing of FUSE: the adapter calls these methods and turns results into replies.
/// What changes as it runs is one value, `CoreState` (the tree, the local files, the handles, the opened versions,
/// the local times), behind one lock, `state`; `tree`, `locals`, `handles`, `openedVersions` and `localTimes` are
/// views of its parts that take that same lock. No lock is ever held across an `await`. Lock order: `state` before
/// the uploader's `UnansweredUploads` (a leaf); every other mutex here is taken alone, never with `state` held.
public final class FileSystem: Sendable {
    public static let rootInode = InodeTable.rootInode

    /// What the core calls: Box, the block store, the write side, the follow-ups (`CoreBackend`).
    let backend: CoreBackend
    let options: FilesystemOptions
    let logger: Logger
    /// The core's state, behind one lock (`CoreState`); the views below take that lock for one part.
    let state: CoreStateLock
    /// How the core reaches the kernel's caches (set by the adapter once the session exists).
    let kernel = KernelCallbacks()
    /// One listing fetch per folder, one local copy per item, one journal entry per local file (`CoreFlights`).
    let flights = CoreFlights()
    /// The control directory: its nodes, the views fetched for it, the requests carried in names (`ControlState`).
    let controlState: ControlState
    /// What the mount was started on (`MountedRoot`).
    let mounted: MountedRoot
    /// The open `boxfs watch` streams (`WatchFile`).
    let watchers = WatchHub()
    /// Keeps pinned items on this machine (`boxfs pin`); nil without a pin file (`cache=off`, tests of the core).
    let pinner: Pinner?

    var client: BoxClient { backend.client }
    var store: BlockStore { backend.store }
    /// The write side (journal, uploader, local copies); nil on a read-only mount.
    var writeBack: WriteBackContext? { backend.writeBack }
    var cleanups: BoxCleanups { backend.cleanups }
    var memoryReturn: MemoryReturn { backend.memoryReturn }
    var listingFetches: SingleFlight<String, StoredListing> { flights.listings }
    var localCopies: SingleFlight<String, UInt64> { flights.localCopies }
    var journaling: SingleFlight<UInt64, Int64?> { flights.journaling }
    var commandQueries: CoreStatePart<CommandQueries> { state.part(\.commandQueries) }
    var mountedAt: Date { mounted.at }
    var singleFileID: String? { mounted.singleFileID }

    var tree: CoreStatePart<InodeTable> { state.part(\.tree) }
    var locals: CoreStatePart<LocalFiles> { state.part(\.locals) }
    var handles: CoreStatePart<HandleTable> { state.part(\.handles) }
    var openedVersions: CoreStatePart<[UInt64: String]> { state.part(\.openedVersions) }
    var localTimes: CoreStatePart<LocalTimes> { state.part(\.localTimes) }
    var listingOrderReads: CoreStatePart<ListingOrderReads> { state.part(\.listingOrderReads) }
    var folderWalks: CoreStatePart<ListingOrderReads> { state.part(\.folderWalks) }
    var smallFilesAhead: CoreStatePart<SmallFilesAhead> { state.part(\.smallFilesAhead) }
    var listingsAhead: CoreStatePart<[String: [String: Task<Void, Never>]]> { state.part(\.listingsAhead) }
    var eventStream: CoreStatePart<EventStreamState> { state.part(\.eventStream) }
    var account: CoreStatePart<CoreState.Account?> { state.part(\.account) }
    var seedings: CoreStatePart<[String: Task<Void, Never>]> { state.part(\.seedings) }
    var nodeEviction: CoreStatePart<NodeEvictionState> { state.part(\.nodeEviction) }

    /// - Parameter root: the Box folder mounted at the mountpoint, or a single file, which is then
    ///   shown as the only entry of a folder that exists only in the mount (`SingleFileRoot`).
    public init(
        client: BoxClient, root: BoxItem, options: FilesystemOptions, store: BlockStore,
        writeBack: WriteBackContext? = nil, diskTree: DiskTree? = nil, logger: Logger
    ) {
        self.backend = CoreBackend(
            client: client, store: store, writeBack: options.readOnly ? nil : writeBack, diskTree: diskTree)
        self.options = options
        self.logger = logger
        self.mounted = MountedRoot(singleFileID: root.kind == .file ? root.id : nil)
        self.controlState = ControlState(name: options.controlDirectoryName)
        self.pinner = options.pinFile.flatMap { file in
            store.canPin ? Pinner(file: file, store: store, client: client, logger: logger) : nil
        }
        var state = CoreState(tree: InodeTable(root: root.kind == .file ? SingleFileRoot.folder(for: root) : root))
        state.locals.unanswered = backend.writeBack?.uploader.unanswered
        state.smallFilesAhead.smallFileLimit = store.blockSize
        // Every change to a listing from the start on is noted for the tree on disk (`FileSystem+DiskTree`).
        state.tree.listings.tracksChanges = diskTree != nil
        self.state = CoreStateLock(state)
    }

    /// Registers how to invalidate the kernel's cache of an inode (its pages and attributes). The
    /// closure must return at once, doing its work elsewhere: it is called while a request may be
    /// served, and the kernel can make an invalidation wait for that request (see `KernelNotifier`).
    public func setInvalidator(_ invalidate: @escaping @Sendable (UInt64) -> Void) {
        kernel.invalidator.withLock { $0 = invalidate }
    }

    /// Registers how to make the kernel forget a name (`fuse_lowlevel_notify_inval_entry`) or learn that it is
    /// gone (`fuse_lowlevel_notify_delete`); like the invalidator, it must return at once.
    public func setEntryInvalidator(_ invalidate: @escaping @Sendable (KernelEntryChange) -> Void) {
        kernel.entryInvalidator.withLock { $0 = invalidate }
    }

    /// Registers how to learn that every invalidation handed over so far has been sent: the closure must
    /// return at once and call its argument later, from the thread that sends them.
    public func setKernelBarrier(_ barrier: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        kernel.kernelBarrier.withLock { $0 = barrier }
    }

    /// Waits (suspended, no thread held) until the invalidations handed over so far have reached the kernel.
    func invalidationsSent() async {
        guard let barrier = kernel.kernelBarrier.withLock({ $0 }) else { return }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in barrier { done.resume() } }
    }

    /// How long a cached listing is trusted: `dir_cache_ttl`, or longer while the event stream is followed
    /// (every change it reports drops the listings it touches).
    var listingTTL: Duration {
        let ttl = options.directoryCacheTTL
        guard ttl > .zero, eventStream.withLock({ $0.phase == .following }) else { return ttl }
        return max(ttl, options.followedListingTTL)
    }

    public var entryTimeout: Double { options.entryTimeout }
    public var attributeTimeout: Double { options.attributeTimeout }

    // MARK: Names and attributes

    /// Finds `name` in the folder `parent` and counts a kernel reference to it.
    public func lookup(parent: UInt64, name: String) async throws(FSError) -> FileAttributes {
        if VirtualInode(parent) == .control { return try await controlLookup(parent: parent, name: name) }
        if let claimed = controlFileAttributes(parent: parent, name: name) { return claimed }
        return try await lookingUpControlName(name, parent: parent) { () async throws(FSError) in
            try await boxLookup(parent: parent, name: name)
        }
    }

    /// `lookup` answered without I/O (the control directory's fixed nodes, a control file's name, a folder's cached
    /// listing through its name index), or nil when it needs a fetch (then `lookup` is called). This is what the
    /// kernel asks thousands of times for `ls -l` or `find` in a large folder.
    public func lookupInFreshListing(parent: UInt64, name: String) throws(FSError) -> FileAttributes? {
        if VirtualInode(parent) == .control { return try controlLookupNow(parent: parent, name: name) }
        if let claimed = controlFileAttributes(parent: parent, name: name) { return claimed }
        return try lookingUpControlNameNow(name, parent: parent) { () throws(FSError) in
            try boxLookupInFreshListing(parent: parent, name: name)
        }
    }

    /// `name` in the Box folder `parent` (with the local files laid over its listing).
    private func boxLookup(parent: UInt64, name: String) async throws(FSError) -> FileAttributes {
        if let attributes = try boxLookupInFreshListing(parent: parent, name: name) { return attributes }
        let folder = try folderItem(parent)
        // Twice at most: an upload landing between the listing and the node can leave the item it found stale.
        for _ in 0..<2 {
            let items = try await listing(of: folder, inode: parent)
            guard let item = items.first(where: { BoxName.same($0.name, name) }) else { throw .notFound(name, in: folder) }
            if let attributes = remember(item, parent: parent) { return attributes }
        }
        throw .notFound(name, in: folder)
    }

    /// `boxLookup` from the folder's cached listing through its name index (no scan, no I/O), or nil when the
    /// listing is older than `dir_cache_ttl`.
    private func boxLookupInFreshListing(parent: UInt64, name: String) throws(FSError) -> FileAttributes? {
        let folder = try folderItem(parent)
        let ttl = listingTTL
        // The listing and the local files in one critical section: between two, an upload landing (into the
        // listing, not this copy of it) and its local file leaving would hide the name (see `shownListing`).
        let found = try state.withLock { state throws(FSError) -> BoxItem? in
            guard let cached = state.tree.freshListing(folderID: folder.id, ttl: ttl, now: .now) else { return nil }
            if let item = state.locals.overlaid(named: name, in: cached, folderID: folder.id) { return item }
            if let why = state.locals.whyHidden(named: name, in: cached, folderID: folder.id) {
                throw FSError(.notFound, "\(name): hidden in folder \(folder.id): \(why)")
            }
            throw .notFound(name, in: folder)
        }
        guard let item = found else { return nil }
        guard let attributes = remember(item, parent: parent) else {
            throw FSError(.notFound, "\(name) in folder \(folder.id): a new file's made-up id that stands for no file")
        }
        return attributes
    }

    /// Counts a kernel reference to `item` in the folder `parent` and returns its attributes; nil when `item`
    /// stands for no file any more (see `nowStandingFor`). The attributes are the node's as the mount knows it
    /// now (local content first), not `item`'s, which may be older (see `InodeTable.remember`).
    func remember(_ item: BoxItem, parent: UInt64) -> FileAttributes? {
        let (node, nodeCount) = state.withLock { state -> (InodeTable.Node?, Int) in
            (Self.nowStandingFor(item, parent: parent, in: state).map { state.tree.remember($0, parentInode: parent) },
             state.tree.nodes.count)
        }
        keepNodesWithinBudget(nodeCount: nodeCount)
        guard let node else { return nil }
        return attributes(of: visible(node), inode: node.inode)
    }

    /// The file `item`, as a listing or a directory snapshot showed it, is now. An item with a made-up id may
    /// be from before its upload landed: it is the local file that has that id or name now, and nil when there
    /// is none (its upload landed and the local copy is gone, or it was deleted): a node of the dead id would
    /// stand for no file (ENOENT at the next open). The caller lists again, or lets the kernel look it up.
    private static func nowStandingFor(_ item: BoxItem, parent: UInt64, in state: CoreState) -> BoxItem? {
        guard case .local = NodeID(item), state.tree.inode(forItemID: item.id) == nil else { return item }
        if let local = state.locals.file(itemID: item.id), !local.unlinked { return local.item }
        guard let folderID = state.tree.node(parent)?.itemID else { return nil }
        return state.locals.file(named: item.name, inFolder: folderID)?.item
    }

    /// The kernel no longer references `inode` `count` times.
    public func forget(_ inode: UInt64, count: UInt64) {
        if let virtual = VirtualInode(inode) { return virtualForget(virtual, inode: inode, count: count) }
        if forgetNode(inode, count: count) { localTimes.withLock { _ = $0.accessed.removeValue(forKey: inode) } }
    }

    public func attributes(_ inode: UInt64) throws(FSError) -> FileAttributes {
        if let virtual = VirtualInode(inode) { return try virtualAttributes(virtual, inode: inode) }
        guard let node = tree.withLock({ $0.node(inode) }) else { throw .notFound("inode \(inode)") }
        if node.id.isDetached, let unlinked = locals.withLock({ $0.unlinkedFile(inode: inode) }) {
            var attributes = attributes(of: unlinked.item, inode: inode)
            attributes.unlinked = true
            return attributes
        }
        return attributes(of: visible(node), inode: inode)
    }

    /// The item as the kernel should see it: with its local size and times while it has local content.
    func visible(_ item: BoxItem) -> BoxItem {
        locals.withLock { $0.file(itemID: item.id)?.item } ?? item
    }

    /// `visible` of the node's item; a detached node stands for no item, so no local file's content is its.
    func visible(_ node: InodeTable.Node) -> BoxItem {
        node.id.isDetached ? node.item : visible(node.item)
    }

    /// Space on the account, from `GET /users/me` (at most a minute old).
    public func statistics() async throws(FSError) -> FilesystemStatistics {
        let user = try await currentUser(maxAge: .seconds(60))
        let blockSize: UInt64 = 4096
        let total = UInt64(max(user.spaceAmount, 0)) / blockSize
        let used = UInt64(max(user.spaceUsed, 0)) / blockSize
        return FilesystemStatistics(
            blockSize: blockSize, totalBlocks: total, freeBlocks: total > used ? total - used : 0, maxNameLength: 255)
    }

    /// The account as Box described it just now (the mount's start-up check): the quota check then starts from it.
    public func knowAccount(_ user: BoxUser) {
        account.withLock { $0 = CoreState.Account(user: user, fetchedAt: .now) }
    }

    /// The account's user, fetched again when older than `maxAge`.
    func currentUser(maxAge: Duration) async throws(FSError) -> BoxUser {
        let now = ContinuousClock.now
        if let cached = account.withLock({ $0 }), now - cached.fetchedAt < maxAge { return cached.user }
        do {
            let user = try await client.currentUser()
            account.withLock { $0 = CoreState.Account(user: user, fetchedAt: now) }
            return user
        } catch {
            throw FSError(error, context: "reading the account's quota")
        }
    }

    // MARK: Helpers shared by the operations

    func attributes(of item: BoxItem, inode: UInt64) -> FileAttributes {
        var modified = item.contentModifiedAt ?? item.modifiedAt ?? mountedAt
        var changed = item.modifiedAt ?? modified
        let isFolder = item.kind == .folder
        let (accessed, entriesChanged) = localTimes.withLock { times in
            (times.accessed[inode], isFolder ? times.entriesChanged[item.id] : nil)
        }
        if let entriesChanged {
            modified = max(modified, entriesChanged)
            changed = max(changed, entriesChanged)
        }
        return FileAttributes(
            inode: inode,
            kind: isFolder ? .directory : isLinkFile(item) ? .symlink : .file,
            size: isFolder ? 4096 : UInt64(max(item.size, 0)),
            modified: modified,
            changed: changed,
            created: item.contentCreatedAt ?? item.createdAt ?? modified,
            accessed: accessed ?? modified,
            permissions: isFolder ? options.directoryPermissions
                : isLockedForUs(item) ? options.filePermissions & ~0o222 : options.filePermissions,
            uid: options.uid,
            gid: options.gid)
    }

    /// Entries of these folders were just added, removed or renamed through the mount: their mtime
    /// and ctime move (see `LocalTimes.entriesChanged`).
    func entriesChanged(in folderIDs: String...) {
        let now = Date()
        localTimes.withLock { times in for id in folderIDs { times.entriesChanged[id] = now } }
    }

    /// The Box folder behind an inode, or ENOTDIR/ENOENT (also for a detached node: it stands for no folder).
    func folderItem(_ inode: UInt64) throws(FSError) -> BoxItem {
        guard let node = tree.withLock({ $0.node(inode) }) else { throw .notFound("inode \(inode)") }
        guard node.item.kind == .folder else { throw .notDirectory(node.item.name) }
        guard !node.id.isDetached else { throw Self.detachedFromItem(node) }
        return node.item
    }

    /// A folder's items: from the cache while fresh, else from the tree on disk while fresh there, else one listing
    /// (shared by concurrent callers).
    func listing(of folder: BoxItem, inode: UInt64) async throws(FSError) -> [BoxItem] {
        await waitForCatchUp(folderID: folder.id)
        let ttl = listingTTL
        if let shown = state.withLock({ $0.shownFreshListing(folderID: folder.id, ttl: ttl, now: .now) }) {
            return shown
        }
        do {
            // What the fetch stored, as the tree holds it when this caller resumes (`CoreState.shownListing`); listed
            // again when the tree dropped it meanwhile and the mount changed a listing since (at most twice more).
            var round = 1
            while true {
                let stored = try await loadListing(of: folder, ttl: ttl)
                if let shown = state.withLock({ $0.shownListing(stored, folderID: folder.id) }) { return shown }
                if round == 3 {
                    logger.debug("listing \(folder.id) was dropped after each of 3 fetches: shown as last stored")
                    return locals.withLock { $0.overlay(stored.items, folderID: folder.id) }
                }
                round += 1
            }
        } catch {
            // Box out of reach: the listing held (in memory or on disk), however old, so what is on this machine
            // (pinned files, files read whole) stays reachable.
            if client.connectivity.offline != nil {
                let held = state.withLock { state in
                    state.tree.listings[folder.id].map { state.locals.overlay($0.items, folderID: folder.id) }
                }
                if let held { return held }
                if let kept = await listingFromDisk(folderID: folder.id, ttl: ttl, anyAge: true) {
                    return state.withLock { state in
                        state.shownListing(kept, folderID: folder.id) ?? state.locals.overlay(kept.items, folderID: folder.id)
                    }
                }
            }
            throw FSError(error, context: "listing \(folder.name)")
        }
    }

    /// A folder's items, stored as its cached listing: from the tree on disk while it holds them fresh by `ttl` (of
    /// any age while Box is out of reach), else from Box; one load per folder however many callers wait for it.
    func loadListing(of folder: BoxItem, ttl: Duration) async throws -> StoredListing {
        try await listingFetches.run(folder.id) { [self] in
            let offline = client.connectivity.offline != nil
            if let kept = await listingFromDisk(folderID: folder.id, ttl: ttl, anyAge: offline) { return kept }
            return try await fetchListing(of: folder)
        }
    }

    /// A folder's items from Box, stored as its cached listing (the pinner's walk, `Pinner`): a pinned folder's
    /// listing is then held for lookups while Box is out of reach.
    func fetchAndStoreListing(folderID: String) async throws -> [BoxItem] {
        let folder = BoxItem(id: folderID, kind: .folder, name: folderID)
        return try await listingFetches.run(folderID) { [self] in try await fetchListing(of: folder) }.items
    }

    /// Asks Box for a folder's items and stores them (once, however many callers wait for it), with
    /// the mount's own changes made meanwhile laid over them (see `OwnChanges`); answers what was stored.
    private func fetchListing(of folder: BoxItem) async throws -> StoredListing {
        let start = tree.withLock { $0.ownChanges.beginFetch() }
        defer { tree.withLock { $0.endListingFetch(start) } }
        let fetched: [BoxItem]
        if folder.id == SingleFileRoot.folderID, let singleFileID {
            fetched = [try await client.file(id: singleFileID)]
        } else {
            fetched = try await client.folderItems(id: folder.id).filter { $0.kind != .webLink }
        }
        let (changed, stored) = tree.withLock { tree in
            let changed = tree.store(listing: fetched, folderID: folder.id, at: .now, since: start)
            let items = tree.listings[folder.id]?.items ?? fetched
            return (changed, StoredListing(items: items, ownChangesAt: tree.ownChanges.current))
        }
        if !changed.isEmpty, let invalidate = kernel.invalidator.withLock({ $0 }) { changed.forEach(invalidate) }
        keepListingsWithinBudget(inUse: folder.id)
        if folder.id == mountedFolder.id, fetched.contains(where: { $0.name == controlName }) {
            reportShadowedControlDirectory()
        }
        return stored
    }
}
