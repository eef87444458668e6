import BoxAPI
import Foundation
import Logging
import Synchronization
import Transfers
import WriteBack

/// The filesystem core: answers the kernel's questions in terms of Box items.
///
/// It knows nothing of FUSE: the adapter calls these methods and turns results into replies.
/// State lives in two mutex-guarded value types (the item tree and the open handles); no lock is
/// ever held across an `await`. Lock order: `tree` before `handles` (never both at once today).
public final class FileSystem: Sendable {
    public static let rootInode = InodeTable.rootInode

    let client: BoxClient
    let store: BlockStore
    let options: FilesystemOptions
    let logger: Logger
    let tree: Mutex<InodeTable>
    let handles = Mutex(HandleTable())
    let listingFetches = SingleFlight<String, [BoxItem]>()
    /// Shown for items Box gives no dates (the root folder).
    let mountedAt = Date()
    /// The Box version each inode's file had when last opened: unchanged → the kernel keeps its page cache.
    let openedVersions = Mutex<[UInt64: String]>([:])
    /// Folders being read file after file, whose next files' download locations are learnt ahead.
    let listingOrderReads = Mutex(ListingOrderReads())
    /// Tells the kernel to drop what it cached of an inode (set by the adapter once the session exists).
    let invalidator = Mutex<(@Sendable (UInt64) -> Void)?>(nil)
    /// The account as `GET /users/me` last described it (space, upload limit), and when.
    let account = Mutex<(user: BoxUser, fetchedAt: ContinuousClock.Instant)?>(nil)
    /// The write side (journal, uploader, local copies); nil on a read-only mount.
    let writeBack: WriteBackContext?
    /// Files with local content (being written or waiting for upload).
    let locals = Mutex(LocalFiles())
    /// One local copy per item at a time, however many open it at once.
    let localCopies = SingleFlight<String, UInt64>()
    /// One journal entry per local file, however many writes race to be first; once begun it is
    /// finished even if every writer waiting for it is interrupted.
    let journaling = SingleFlight<UInt64, Int64?>(cancelsWhenAbandoned: false)
    /// Serialises mtime writes to the journal (see `persistModifiedTime`).
    let modifiedTimeWrites = Mutex(())
    /// Local copies being stored in the block cache as they are let go of, by Box file id (see `retire`).
    let seedings = Mutex<[String: Task<Void, Never>]>([:])

    /// The file shown when the mounted item is a single file (a shared link to a file), else nil.
    let singleFileID: String?

    /// - Parameter root: the Box folder mounted at the mountpoint, or a single file, which is then
    ///   shown as the only entry of a folder that exists only in the mount (`SingleFileRoot`).
    public init(
        client: BoxClient, root: BoxItem, options: FilesystemOptions, store: BlockStore,
        writeBack: WriteBackContext? = nil, logger: Logger
    ) {
        self.client = client
        self.writeBack = options.readOnly ? nil : writeBack
        self.store = store
        self.options = options
        self.logger = logger
        self.singleFileID = root.kind == .file ? root.id : nil
        self.tree = Mutex(InodeTable(root: root.kind == .file ? SingleFileRoot.folder(for: root) : root))
    }

    /// Registers how to invalidate the kernel's cache of an inode (its pages and attributes). The
    /// closure must return at once, doing its work elsewhere: it is called while a request may be
    /// served, and the kernel can make an invalidation wait for that request (see `KernelNotifier`).
    public func setInvalidator(_ invalidate: @escaping @Sendable (UInt64) -> Void) {
        invalidator.withLock { $0 = invalidate }
    }

    public var entryTimeout: Double { options.entryTimeout }
    public var attributeTimeout: Double { options.attributeTimeout }

    // MARK: Names and attributes

    /// Finds `name` in the folder `parent` and counts a kernel reference to it.
    public func lookup(parent: UInt64, name: String) async throws(FSError) -> FileAttributes {
        if let attributes = try lookupInFreshListing(parent: parent, name: name) { return attributes }
        let folder = try folderItem(parent)
        let items = try await listing(of: folder, inode: parent)
        guard let item = items.first(where: { $0.name == name }) else { throw .notFound(name) }
        return remember(item, parent: parent)
    }

    /// `lookup` answered from the folder's cached listing through its name index (no scan, no I/O),
    /// or nil when the listing is older than `dir_cache_ttl` (then `lookup` lists the folder). This is
    /// what the kernel asks thousands of times for `ls -l` or `find` in a large folder.
    public func lookupInFreshListing(parent: UInt64, name: String) throws(FSError) -> FileAttributes? {
        if parent == Self.rootInode, name == StatusFile.name { return statusFileAttributes }
        let folder = try folderItem(parent)
        let ttl = options.directoryCacheTTL
        guard let cached = tree.withLock({ $0.freshListing(folderID: folder.id, ttl: ttl, now: .now) }) else {
            return nil
        }
        guard let item = locals.withLock({ $0.overlaid(named: name, in: cached, folderID: folder.id) }) else {
            throw .notFound(name)
        }
        return remember(item, parent: parent)
    }

    /// Counts a kernel reference to `item` in the folder `parent` and returns its attributes.
    private func remember(_ item: BoxItem, parent: UInt64) -> FileAttributes {
        let node = tree.withLock { $0.remember(item, parentInode: parent) }
        return attributes(of: node.item, inode: node.inode)
    }

    /// The kernel no longer references `inode` `count` times.
    public func forget(_ inode: UInt64, count: UInt64) {
        tree.withLock { $0.forget(inode, count: count) }
    }

    public func attributes(_ inode: UInt64) throws(FSError) -> FileAttributes {
        if inode == StatusFile.inode { return statusFileAttributes }
        guard let node = tree.withLock({ $0.node(inode) }) else { throw .notFound("inode \(inode)") }
        return attributes(of: visible(node.item), inode: inode)
    }

    /// The item as the kernel should see it: with its local size and times while it has local content.
    func visible(_ item: BoxItem) -> BoxItem {
        locals.withLock { $0.file(itemID: item.id)?.item } ?? item
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

    /// The account's user, fetched again when older than `maxAge`.
    func currentUser(maxAge: Duration) async throws(FSError) -> BoxUser {
        let now = ContinuousClock.now
        if let cached = account.withLock({ $0 }), now - cached.fetchedAt < maxAge { return cached.user }
        do {
            let user = try await client.currentUser()
            account.withLock { $0 = (user, now) }
            return user
        } catch {
            throw FSError(error, context: "reading the account's quota")
        }
    }

    // MARK: Helpers shared by the operations

    func attributes(of item: BoxItem, inode: UInt64) -> FileAttributes {
        let modified = item.contentModifiedAt ?? item.modifiedAt ?? mountedAt
        let isFolder = item.kind == .folder
        return FileAttributes(
            inode: inode,
            kind: isFolder ? .directory : .file,
            size: isFolder ? 4096 : UInt64(max(item.size, 0)),
            modified: modified,
            changed: item.modifiedAt ?? modified,
            created: item.contentCreatedAt ?? item.createdAt ?? modified,
            permissions: isFolder ? 0o755 : 0o644,
            uid: options.uid,
            gid: options.gid)
    }

    /// The Box folder behind an inode, or ENOTDIR/ENOENT.
    func folderItem(_ inode: UInt64) throws(FSError) -> BoxItem {
        guard let node = tree.withLock({ $0.node(inode) }) else { throw .notFound("inode \(inode)") }
        guard node.item.kind == .folder else { throw .notDirectory(node.item.name) }
        return node.item
    }

    /// A folder's items: from the cache while fresh, else one listing (shared by concurrent callers).
    func listing(of folder: BoxItem, inode: UInt64) async throws(FSError) -> [BoxItem] {
        let ttl = options.directoryCacheTTL
        if let cached = tree.withLock({ $0.freshListing(folderID: folder.id, ttl: ttl, now: .now) }) {
            return locals.withLock { $0.overlay(cached.items, folderID: folder.id) }
        }
        do {
            let client = self.client, singleFileID = self.singleFileID
            let items = try await listingFetches.run(folder.id) {
                if folder.id == SingleFileRoot.folderID, let singleFileID { return [try await client.file(id: singleFileID)] }
                return try await client.folderItems(id: folder.id).filter { $0.kind != .webLink }
            }
            let changed = tree.withLock { $0.store(listing: items, folderID: folder.id, at: .now) }
            if !changed.isEmpty, let invalidate = invalidator.withLock({ $0 }) { changed.forEach(invalidate) }
            return locals.withLock { $0.overlay(items, folderID: folder.id) }
        } catch {
            throw FSError(error, context: "listing \(folder.name)")
        }
    }
}
