import BoxAPI
import Foundation
import Synchronization

/// Everything the core knows that changes as it runs, as one value behind one lock (`CoreStateLock`).
///
/// Before this, each part had a mutex of its own, and nearly every divergence the soaks found was a check made
/// under one of them and acted on under another (docs/TESTING.md). With one lock, a decision that reads the tree
/// and the local files is made and applied in one critical section (`CoreStateLock.withLock`); the parts'
/// own views (`FileSystem.tree`, `.locals`, …) take the same lock, for code that needs one part only.
/// No I/O, no `await`, no SQLite and no waiting on another lock happens while it is held.
struct CoreState {
    /// The Box items the kernel knows and the cached listings (`InodeTable`).
    var tree: InodeTable
    /// Files with local content: being written, or waiting for their upload (`LocalFiles`).
    var locals = LocalFiles()
    /// Open file and folder handles (`HandleTable`).
    var handles = HandleTable()
    /// The Box version each inode's file had when last opened: unchanged → the kernel keeps its page cache.
    var openedVersions: [UInt64: String] = [:]
    /// Access times and folder change times, which Box does not keep (`LocalTimes`).
    var localTimes = LocalTimes()
    /// Folders being read file after file, whose next files' download locations are learnt ahead.
    var listingOrderReads = ListingOrderReads()
    /// The small files whose content a walk in listing order gets fetched ahead (`FileSystem+PrepareNext`).
    var smallFilesAhead = SmallFilesAhead()
    /// The walks of folders being followed, whose next sub-folders are listed ahead (`FileSystem+PrepareNext`).
    var folderWalks = ListingOrderReads.folderWalk
    /// Listings fetched ahead of a walk, by the folder being walked and the sub-folder listed (see `folderWalks`).
    var listingsAhead: [String: [String: Task<Void, Never>]] = [:]
    /// How the mount follows Box's event stream (`EventFollower`).
    var eventStream = EventStreamState()
    /// The account as `GET /users/me` last described it (space, upload limit), and when.
    var account: Account?
    /// A background fetch of the account is under way (the quota check's, `FileSystem.checkSpace`).
    var accountRefreshing = false
    /// Local copies being stored in the block cache as they are let go of, by Box file id (see `retire`).
    var seedings: [String: Task<Void, Never>] = [:]
    /// The pass asking the kernel to forget files past `node_cache_entries` (`FileSystem+NodeEviction`).
    var nodeEviction = FileSystem.NodeEvictionState()
    /// Requests carried in names, for read-only mounts (`CommandQueries`).
    var commandQueries = CommandQueries()

    struct Account {
        let user: BoxUser
        let fetchedAt: ContinuousClock.Instant
    }
}

/// The one lock around `CoreState`.
///
/// Lock order (`LockOrder`): taken only while no other lock of the core is held, and nothing of the core is
/// taken under it; the uploader's `UnansweredUploads` (a leaf, read through `LocalFiles`) is the one lock taken
/// inside. It is not re-entrant: a body must not call back into `FileSystem` methods that lock. A debug build
/// stops with a message naming the mistake (the alternative is a silent deadlock).
final class CoreStateLock: @unchecked Sendable {
    // @unchecked: `state` is read and written only inside `withLock`, under `lock`.
    private let lock = NSLock()
    private var state: CoreState

    init(_ state: CoreState) { self.state = state }

    func withLock<Result, E: Error>(_ body: (inout CoreState) throws(E) -> Result) throws(E) -> Result {
        LockOrder.take("the core state lock")
        defer { LockOrder.release() }
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }

    /// A view of one part of the state that takes this same lock (see `CoreStatePart`).
    func part<Part>(_ path: WritableKeyPath<CoreState, Part> & Sendable) -> CoreStatePart<Part> {
        CoreStatePart(lock: self, path: path)
    }
}

/// One part of `CoreState` (the tree, the local files, …), locked through the one `CoreStateLock`: code that needs
/// that part only reads as before (`tree.withLock { … }`), and code that needs two takes the whole state once.
struct CoreStatePart<Part>: Sendable {
    let lock: CoreStateLock
    let path: WritableKeyPath<CoreState, Part> & Sendable

    func withLock<Result, E: Error>(_ body: (inout Part) throws(E) -> Result) throws(E) -> Result {
        try lock.withLock { (state: inout CoreState) throws(E) -> Result in try body(&state[keyPath: path]) }
    }
}
