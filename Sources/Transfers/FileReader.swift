import BlockCache
import Foundation
import Logging
import Synchronization

/// Reads one open file: plans read-ahead per handle, assembles reads from the shared block store,
/// and checks a whole read against Box's SHA-1.
///
/// Hashing runs on a serial queue beside the reads, never on the reply path (it would cost as much
/// CPU as the rest of the read path on two cores). The read that ends the file waits for the queue,
/// so a mismatch found by then is that read's EIO; one found later is logged and the blocks dropped.
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
    private let verifier: Mutex<WholeFileVerifier>  // only touched on `hashing`, so never contended
    private let hashing: DispatchQueue
    /// Bytes handed to `hashing` and not hashed yet.
    private let hashBacklog = Atomic<Int>(0)

    public init(file: RemoteFile, store: BlockStore, logger: Logger) {
        self.file = file
        self.store = store
        self.logger = logger
        let configuration = ReadAheadPlanner.Configuration(blockSize: store.blockSize)
        self.planner = Mutex(ReadAheadPlanner(fileSize: file.size, configuration: configuration))
        self.verifier = Mutex(WholeFileVerifier(size: file.size, expected: file.sha1))
        self.hashing = DispatchQueue(label: "boxfs.verify.\(file.id)", qos: .utility)
    }

    /// Up to `length` bytes at `offset`; fewer only at the end of the file.
    public func read(offset: Int64, length: Int) async throws -> Data {
        let end = min(offset + Int64(length), file.size)
        guard offset >= 0, offset < end else { return Data() }
        let plan = planner.withLock { $0.plan(offset: offset, length: length) }
        for range in plan.fetches { store.prefetch(range, of: file) }
        await store.waitForDiskWriter()

        let blockSize = store.blockSize
        let first = offset / blockSize, last = (end - 1) / blockSize
        if first == last {
            // The common case (reads of up to 1 MiB, block-aligned by the kernel): a slice, no copy.
            let block = try await store.block(first, of: file)
            let from = Int(offset - first * blockSize), to = Int(end - first * blockSize)
            guard to <= block.count else { throw TransferError.shortRead(expectedAt: offset) }
            let result = block[block.startIndex + from..<block.startIndex + to]
            try await verify(result, at: offset)
            if end == file.size { await store.flushDiskWrites() }
            return result
        }
        var result = Data(capacity: Int(end - offset))
        for index in first...last {
            let block = try await store.block(index, of: file)
            let blockStart = index * blockSize
            let from = Int(max(offset, blockStart) - blockStart)
            let to = Int(min(end, blockStart + Int64(block.count)) - blockStart)
            guard from < to else { throw TransferError.shortRead(expectedAt: max(offset, blockStart)) }
            result.append(block[block.startIndex + from..<block.startIndex + to])
        }
        try await verify(result, at: offset)
        if end == file.size { await store.flushDiskWrites() }
        return result
    }

    private func verify(_ data: Data, at offset: Int64) async throws {
        guard file.sha1 != nil else { return }
        let count = data.count
        let endsFile = offset + Int64(count) == file.size
        let backlog = hashBacklog.wrappingAdd(count, ordering: .relaxed).newValue
        guard endsFile || backlog > Self.maximumHashBacklog else {
            hashing.async { [self] in
                record(data, at: offset)
                hashBacklog.wrappingSubtract(count, ordering: .relaxed)
            }
            return
        }
        // FIFO: by the time this runs, every piece handed to the queue before it has been hashed.
        let mismatch = await withCheckedContinuation { continuation in
            hashing.async { [self] in
                let mismatch = record(data, at: offset)
                hashBacklog.wrappingSubtract(count, ordering: .relaxed)
                continuation.resume(returning: mismatch)
            }
        }
        if let mismatch { throw mismatch }
    }

    /// Hashes one piece (on `hashing`); a mismatch is logged, drops the file's blocks and is returned once.
    @discardableResult
    private func record(_ data: Data, at offset: Int64) -> TransferError? {
        let (before, outcome) = verifier.withLock { verifier in (verifier.outcome, verifier.record(data, at: offset)) }
        guard before == .pending, case .mismatched(let actual) = outcome else { return nil }
        let error = TransferError.checksumMismatch(fileID: file.id, expected: file.sha1 ?? "", actual: actual)
        logger.error("\(error)")
        store.drop(fileID: file.id)
        return error
    }
}
