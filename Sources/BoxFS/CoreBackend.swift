import BoxAPI
import Foundation
import Synchronization
import Transfers

/// What the core calls to do its work: Box (`BoxClient`, behind `HTTPSending`), the block store, the write side
/// (journal and uploader; nil on a read-only mount), the follow-ups made after uploads land, and the memory given
/// back to the system. The in-process model (Tests/ModelTests) hands the core a `BoxClient` over a fake Box.
struct CoreBackend: Sendable {
    let client: BoxClient
    let store: BlockStore
    let writeBack: WriteBackContext?
    /// The tree on disk (`DiskTree`); nil when the mount keeps none (a shared link, tests of the core).
    let diskTree: DiskTree?
    /// Box changes made on the mount's own behalf after uploads land, which namespace operations wait for.
    let cleanups = BoxCleanups()
    /// Gives memory back to the system after much of the tree was dropped (`FileSystem+ListingEviction`).
    let memoryReturn = MemoryReturn()
}

/// How the core reaches the kernel's caches, set by the FUSE adapter once its session exists (nil before, and in
/// the in-process model). Each closure must return at once, doing its work elsewhere (see `KernelNotifier`).
///
/// Lock order: each mutex is taken alone, only to read or set its closure, which is called with no lock held.
final class KernelCallbacks: Sendable {
    /// Tells the kernel to drop what it cached of an inode.
    let invalidator = OwnLock<(@Sendable (UInt64) -> Void)?>("the kernel's invalidator", nil)
    /// Tells the kernel to look a name up again, or that it is gone.
    let entryInvalidator = OwnLock<(@Sendable (KernelEntryChange) -> Void)?>("the kernel's entry invalidator", nil)
    /// Calls its argument once every invalidation handed over before has been sent (see `setKernelBarrier`).
    let kernelBarrier = OwnLock<(@Sendable (@escaping @Sendable () -> Void) -> Void)?>(
        "the kernel's barrier", nil)
}

/// The core's single flights: concurrent callers of one key share one run.
struct CoreFlights: Sendable {
    /// One listing fetch per folder.
    let listings = SingleFlight<String, StoredListing>()
    /// One local copy per item at a time, however many open it at once.
    let localCopies = SingleFlight<String, UInt64>()
    /// One journal entry per local file, however many writes race to be first; once begun it is
    /// finished even if every writer waiting for it is interrupted.
    let journaling = SingleFlight<UInt64, Int64?>(cancelsWhenAbandoned: false)
}

/// What the mount was started on.
struct MountedRoot: Sendable {
    /// The file shown when the mounted item is a single file (a shared link to a file), else nil.
    let singleFileID: String?
    /// Shown for items Box gives no dates (the root folder).
    let at = Date()
}
