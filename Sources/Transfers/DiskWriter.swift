import BlockCache
import Dispatch
import Foundation
import Logging
import Synchronization

/// Stores fetched blocks in the disk cache on threads of its own, so a slow disk never holds a task
/// of Swift's cooperative pool (which also serves FUSE replies) and `O_DIRECT` writes can wait for
/// the device. Two queues (blocks alternate by index) let one block's device wait overlap the next
/// block's file creation.
///
/// Paced, not lossy: blocks waiting to be written keep their fetch buffers alive, so readers wait
/// (`waitForRoom`) while more than `softLimit` bytes wait; then a cold read runs no faster than the
/// cache can take it, and every block it read is cached (dropping blocks instead lost 30 % of a
/// 1 GiB read on this VM, where creating a file costs ~0.5 ms). Only past `hardLimit` (many
/// readers at once) are blocks left out of the cache. Readers start a read's fetches before they pace
/// themselves, so the kernel's reads in flight overshoot `softLimit`: with 8 readers on a slow disk the
/// backlog is thought to have passed 48 MiB, the old hard limit, and blocks left out then were fetched again
/// once memory let go of them (a CI run fetched 4 of 192 MiB twice; not reproduced on this machine).
///
/// Blocks waiting to be written can be read (`queued`): a block memory let go of before its write landed
/// is not fetched again.
///
/// Blocks queued before the process exits are still written: an `atexit` handler waits (up to
/// `exitGrace`) for every writer, so a file read just before unmounting is in the cache at the
/// next mount.
final class DiskWriter: Sendable {
    let cache: BlockCache
    let softLimit: Int
    let hardLimit: Int
    private let queues = (0..<2).map { DispatchQueue(label: "boxfs.blockcache.writer.\($0)", qos: .utility) }
    private let state = Mutex((pending: 0, waiters: [CheckedContinuation<Void, Never>]()))
    /// The blocks waiting to be written, by file, version and index (never locked together with `state`; read under
    /// `BlockStore`'s lock, which is taken first).
    private let waiting = Mutex<[MemoryBlocks.Key: Data]>([:])
    private let logger: Logger

    /// Every write of every writer, from queueing to done (what the exit handler waits for).
    private static let inProgress = DispatchGroup()
    static let exitGrace = DispatchTimeInterval.seconds(10)
    private static let exitHandler: Void = {
        atexit { _ = DiskWriter.inProgress.wait(timeout: .now() + DiskWriter.exitGrace) }
    }()

    init(cache: BlockCache, softLimit: Int = 24 << 20, hardLimit: Int = 96 << 20, logger: Logger) {
        self.cache = cache
        self.softLimit = softLimit
        self.hardLimit = hardLimit
        self.logger = logger
        Self.exitHandler
    }

    /// Queues `blocks` (index, bytes) of `file` for the disk cache; returns at once.
    func write(_ blocks: [(index: Int64, data: Data)], of file: RemoteFile) {
        let bytes = blocks.reduce(0) { $0 + $1.data.count }
        let accepted = state.withLock { state -> Bool in
            guard state.pending + bytes <= hardLimit else { return false }
            state.pending += bytes
            return true
        }
        guard accepted else {
            logger.debug("disk cache writer is far behind; \(bytes) bytes of file \(file.id) not cached")
            return
        }
        waiting.withLock { waiting in
            for block in blocks { waiting[MemoryBlocks.Key(fileID: file.id, version: file.version, index: block.index)] = block.data }
        }
        for block in blocks {
            Self.inProgress.enter()
            queues[Int(block.index % Int64(queues.count))].async { [self] in
                cache.write(fileID: file.id, version: file.version, block: Int(block.index), data: block.data)
                let key = MemoryBlocks.Key(fileID: file.id, version: file.version, index: block.index)
                _ = waiting.withLock { $0.removeValue(forKey: key) }
                written(block.data.count)
                Self.inProgress.leave()
            }
        }
    }

    /// Blocks of this file queued for writing are no longer read from here (their bytes proved wrong).
    func forget(fileID: String) {
        waiting.withLock { waiting in waiting = waiting.filter { $0.key.fileID != fileID } }
    }

    /// A block queued for writing and not written yet.
    func queued(fileID: String, version: String, block index: Int64) -> Data? {
        waiting.withLock { $0[MemoryBlocks.Key(fileID: fileID, version: version, index: index)] }
    }

    /// Returns when no more than `softLimit` bytes wait to be written.
    func waitForRoom() async {
        await withCheckedContinuation { continuation in
            let hasRoom = state.withLock { state -> Bool in
                guard state.pending > softLimit else { return true }
                state.waiters.append(continuation)
                return false
            }
            if hasRoom { continuation.resume() }
        }
    }

    /// Returns once every block queued before the call has been written (tests, orderly shutdown).
    func flush() async {
        for queue in queues {
            await withCheckedContinuation { continuation in
                queue.async { continuation.resume() }
            }
        }
    }

    private func written(_ bytes: Int) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.pending -= bytes
            guard state.pending <= softLimit else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }
}
