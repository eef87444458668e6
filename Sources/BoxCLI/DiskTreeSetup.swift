import BoxFS
import Foundation
import Logging
import SystemCalls

/// Opens the mount's tree on disk (`DiskTree`: `<cache_dir>/<account>/tree-<mounted folder id>.sqlite`, beside the
/// event stream position) and tells the new filesystem which listings it holds before the mount answers anything
/// (each is read from the disk when first used).
enum DiskTreeSetup {
    /// The tree of this account and folder; nil for a shared-link mount (no event stream keeps it true) or when
    /// it cannot be made (the mount then lists everything, as before).
    static func open(
        options: MountOptions, source: MountSource, endpoint: String, userID: String, rootID: String, logger: Logger
    ) async -> DiskTree? {
        if case .sharedLink = source { return nil }
        let account = CacheLocation.accountDirectory(options: options, endpoint: endpoint, userID: userID)
        try? FileManager.default.createDirectory(
            at: account, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = account.appendingPathComponent("tree-\(rootID).sqlite").path
        // One mount at a time keeps a folder's tree (two read-only mounts may share a cache_dir): the other's writes,
        // each true to its own stream position, would mix listings of different positions under one.
        let lockPath = account.appendingPathComponent("tree-\(rootID).lock").path
        guard let descriptor = try? Syscall.open(lockPath, O_RDWR | O_CREAT) else { return nil }
        guard (try? Syscall.lockExclusively(descriptor, path: lockPath)) == true else {
            Syscall.close(descriptor)
            logger.notice("another mount of this folder keeps its tree on disk in this cache_dir; this one keeps none")
            return nil
        }
        // The lock is held for the life of the process: the kernel lets it go with the descriptor.
        do {
            return try await DiskTree.open(path: path, logger: logger)
        } catch {
            logger.warning("no tree on disk at \(path): \(error)")
            return nil
        }
    }

    /// Notes the tree's listings in `filesystem`. With the event stream followed, its listings are used only when they
    /// reflect the very position the stream resumes from (`resumesFrom`): after a kill the position may have been
    /// saved past what the listings hold, and then every listing is dropped, on disk too.
    static func load(
        _ tree: DiskTree, into filesystem: FileSystem, followsEvents: Bool, resumesFrom: String?, logger: Logger
    ) async {
        let started = ContinuousClock.now
        do {
            let index = try await tree.loadIndex()
            guard !index.folders.isEmpty else { return }
            if followsEvents, index.position == nil || index.position != resumesFrom {
                logger.info("tree on disk: its \(index.folders.count) listings reflect position \(index.position ?? "none"), not \(resumesFrom ?? "none"); dropped")
                try await tree.dropAll()
                return
            }
            let count = filesystem.loadIndex(index, awaitingCatchUp: followsEvents)
            let took = ContinuousClock.now - started
            logger.info("tree on disk: \(count) listings (\(index.entryCount) entries) known in \(took), each read when used\(followsEvents ? ", to be caught up from position \(resumesFrom ?? "")" : "")")
        } catch {
            logger.warning("the tree on disk \(tree.path) could not be read (\(error)); listing everything again")
            try? await tree.dropAll()
        }
    }
}
