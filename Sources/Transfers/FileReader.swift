import BlockCache
import Foundation
import Logging
import Synchronization

/// Reads one open file: plans read-ahead per handle, assembles reads from the shared block store,
/// and checks a whole read against Box's SHA-1.
///
/// Hashing runs on a serial queue beside the reads, never on the reply path (it would cost as much
/// CPU as the rest of the read path on two cores). The read that ends the file waits for the queue,
/// and so does every read handed over after it: the kernel's read-ahead completes out of order, so
/// the piece that completes the hash may come after the end, and its read must be the one that fails.
/// (A read that did not wait was hashed before the end, so it cannot be the one that finds a
/// mismatch; should it ever, the mismatch is still logged and the blocks dropped.)
/// A mismatch sticks to the handle: every later read of it fails too. The kernel retries a failed
/// read-ahead as a plain read of the same pages, and that retry must not succeed with the bad bytes.
///
/// A match marks the version verified in the block store (and the disk cache), once its blocks are written:
/// only a verified version's pages are kept by the kernel across opens, so an unverified version's next whole
/// read comes here whole and is checked (a partial read cannot be: Box's SHA-1 covers the whole file).
///
/// The read that ends the file also waits until the blocks fetched so far are in the disk cache
/// (written in the background until then): a file read to its end is in the cache, even if the
/// mount goes away right after, and the disk work is part of the read it belongs to.
///
/// SHA-1 (~1.8 GiB/s with SHA-NI) is slower than loopback downloads, so reads can outrun it. A read
/// that finds more than `maximumHashBacklog` bytes waiting to be hashed waits for its own piece:
/// otherwise the backlog grows without bound and every piece in it keeps its fetch buffer alive
/// (measured: most of a 1 GiB read then ran on freshly faulted memory).
public final class FileReader: Sendable {
    public static let maximumHashBacklog = 8 << 20

    public let file: RemoteFile
    private let store: BlockStore
    private let logger: Logger
    private let planner: Mutex<ReadAheadPlanner>
    /// Read-ahead the planner asked for that the store had no budget for yet, asked for again at the next
    /// read (see `BlockStore.prefetch(_:of:withinBudget:)`).
    private let deferred = Mutex<[Range<Int64>]>([])
    private let verifier: Mutex<WholeFileVerifier>  // only touched on `hashing`, so never contended
    private let hashing: DispatchQueue
    /// Bytes handed to `hashing` and not hashed yet.
    private let hashBacklog = Atomic<Int>(0)
    /// Whether the piece that ends the file has been handed to `hashing`. Set and read under its lock, with
    /// the hand-over of pieces that do not wait, so every piece handed after the end's waits for its hash.
    private let endHanded = Mutex(false)
    /// The mismatch once the whole read proved wrong; every read after it fails with it.
    private let failure = Mutex<TransferError?>(nil)
    /// Blocks whose download stalled, with the error: later reads of them through this handle fail at
    /// once. The kernel retries a failed read-ahead as a plain read of the same pages; that retry must
    /// not wait for a second stall (a new open tries again).
    private let stalled = Mutex<[Int64: TransferError]>([:])

    /// Read-ahead not read by now is the first to leave memory.
    deinit {
        let end = planner.withLock { $0.streamEnd } ?? 0
        store.abandon(file, from: end / store.blockSize)
    }

    public init(file: RemoteFile, store: BlockStore, logger: Logger) {
        self.file = file
        self.store = store
        self.logger = logger
        let configuration = ReadAheadPlanner.Configuration(blockSize: store.blockSize)
        self.planner = Mutex(ReadAheadPlanner(fileSize: file.size, configuration: configuration))
        self.verifier = Mutex(WholeFileVerifier(size: file.size, expected: file.sha1))
        self.hashing = DispatchQueue(label: "boxfs.verify.\(file.id)", qos: .utility)
    }

    /// Whether the bytes handed out so far were the whole file and matched Box's SHA-1.
    public var matchedWhole: Bool { verifier.withLock { $0.outcome } == .matched }

    /// Up to `length` bytes at `offset`; fewer only at the end of the file.
    public func read(offset: Int64, length: Int) async throws -> Data {
        let end = min(offset + Int64(length), file.size)
        guard offset >= 0, offset < end else { return Data() }
        if let failure = failure.withLock({ $0 }) { throw failure }
        let blockSize = store.blockSize
        let first = offset / blockSize, last = (end - 1) / blockSize
        // Before anything is fetched: the kernel's retry of a failed read-ahead would otherwise send a fetch into
        // the stalled server, and a read after it came back would wait for that one.
        if let stall = stalled.withLock({ stalled in (first...last).first { stalled[$0] != nil }.flatMap { stalled[$0] } }) {
            throw stall
        }
        fetch(planner.withLock { $0.plan(offset: offset, length: length) }, needed: first * blockSize..<(last + 1) * blockSize)
        await store.waitForDiskWriter()
        if first == last {
            // The common case (reads of up to 1 MiB, block-aligned by the kernel): a slice, no copy.
            let block = try await block(first, taking: Int(end - offset))
            let from = Int(offset - first * blockSize), to = Int(end - first * blockSize)
            guard to <= block.count else { throw TransferError.shortRead(expectedAt: offset) }
            let result = block[block.startIndex + from..<block.startIndex + to]
            if try await verify(result, at: offset) || end == file.size { await finishWholeRead() }
            return result
        }
        var result = Data(capacity: Int(end - offset))
        for index in first...last {
            let blockStart = index * blockSize
            let block = try await block(index, taking: Int(min(end, blockStart + blockSize) - max(offset, blockStart)))
            let from = Int(max(offset, blockStart) - blockStart)
            let to = Int(min(end, blockStart + Int64(block.count)) - blockStart)
            guard from < to else { throw TransferError.shortRead(expectedAt: max(offset, blockStart)) }
            result.append(block[block.startIndex + from..<block.startIndex + to])
        }
        if try await verify(result, at: offset) || end == file.size { await finishWholeRead() }
        return result
    }

    /// Starts what `plan` asks for after the read-ahead deferred before it: the `needed` blocks always, the
    /// rest as the store's read-ahead budget allows (what it declines waits for the next read).
    private func fetch(_ plan: ReadAheadPlanner.Plan, needed: Range<Int64>) {
        let earlier = deferred.withLock { deferred in
            defer { deferred = [] }
            return plan.isSequential ? deferred : []
        }
        var declined: [Range<Int64>] = []
        for range in earlier + plan.fetches where range.upperBound > needed.lowerBound {
            let demand = range.clamped(to: range.lowerBound..<max(range.lowerBound, needed.upperBound))
            if !demand.isEmpty { store.prefetch(demand, of: file) }
            guard range.upperBound > needed.upperBound else { continue }
            let ahead = max(range.lowerBound, needed.upperBound)..<range.upperBound
            if !declined.isEmpty {
                declined.append(ahead)
            } else if let rest = store.prefetch(ahead, of: file, withinBudget: true) {
                declined.append(rest)
            }
        }
        if !declined.isEmpty { deferred.withLock { $0 = declined } }
    }

    /// One block from the store, of which the read takes `bytes`; a stall is remembered for this handle.
    private func block(_ index: Int64, taking bytes: Int) async throws -> Data {
        do {
            return try await store.block(index, of: file, taking: bytes)
        } catch let error as TransferError {
            if case .stalled = error { stalled.withLock { $0[index] = error } }
            throw error
        }
    }

    /// The read that ends the file, or a later one whose piece completed the hash (read-ahead completes out of
    /// order): waits until the fetched blocks are on disk, then, if the whole read matched Box's SHA-1, records the
    /// version as verified (after the writes, which clear the disk cache's marker).
    private func finishWholeRead() async {
        await store.flushDiskWrites()
        if verifier.withLock({ $0.outcome }) == .matched { store.markVerified(file) }
    }

    /// Returns whether this piece, hashed before returning, completed a match.
    private func verify(_ data: Data, at offset: Int64) async throws -> Bool {
        guard file.sha1 != nil else { return false }
        let count = data.count
        let endsFile = offset + Int64(count) == file.size
        let backlog = hashBacklog.wrappingAdd(count, ordering: .relaxed).newValue
        let waits = endHanded.withLock { endHanded -> Bool in
            if endsFile { endHanded = true }
            guard endHanded || backlog > Self.maximumHashBacklog else {
                hashing.async { [self] in
                    if record(data, at: offset) != nil { Task { await dropBlocksAfterQueuedWrites() } }
                    hashBacklog.wrappingSubtract(count, ordering: .relaxed)
                }
                return false
            }
            return true
        }
        guard waits else { return false }
        // FIFO: by the time this runs, every piece handed to the queue before it has been hashed.
        let (mismatch, matched) = await withCheckedContinuation { continuation in
            hashing.async { [self] in
                let before = verifier.withLock { $0.outcome }
                let mismatch = record(data, at: offset)
                let matched = before == .pending && verifier.withLock { $0.outcome } == .matched
                hashBacklog.wrappingSubtract(count, ordering: .relaxed)
                continuation.resume(returning: (mismatch, matched))
            }
        }
        if let mismatch {
            await dropBlocksAfterQueuedWrites()
            throw mismatch
        }
        return matched
    }

    /// Hashes one piece (on `hashing`); a mismatch is logged, drops the file's blocks, fails every later
    /// read of this handle, and is returned once (the caller drops the blocks again after queued writes).
    private func record(_ data: Data, at offset: Int64) -> TransferError? {
        let (before, outcome) = verifier.withLock { verifier in (verifier.outcome, verifier.record(data, at: offset)) }
        guard before == .pending, case .mismatched(let actual) = outcome else { return nil }
        let error = TransferError.checksumMismatch(fileID: file.id, expected: file.sha1 ?? "", actual: actual)
        failure.withLock { $0 = error }
        logger.error("\(error)")
        store.drop(fileID: file.id)
        return error
    }

    /// Drops the file's blocks again once the disk writer has stored what was queued before the mismatch:
    /// blocks still in its queue at the first drop would otherwise land in the cache after it.
    private func dropBlocksAfterQueuedWrites() async {
        await store.flushDiskWrites()
        store.drop(fileID: file.id)
    }
}
