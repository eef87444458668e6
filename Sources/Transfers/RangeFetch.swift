import BoxAPI
import CurlHTTP
import Foundation
import Synchronization

/// One block-aligned range being fetched. Its bytes land in one page-aligned buffer from the
/// `ReceiveBufferPool`, and each block is handed out the moment its last byte has arrived: a reader
/// of the first block of an 8 MiB range waits for 1 MiB, not for the whole range.
///
/// Blocks are `Data` slices of the buffer (no copy); the buffer goes back to the pool when the last
/// slice is released. Ranges under `minimumStreamedSize` are collected in an ordinary `Data` and
/// handed out whole at the end: `Data(bytesNoCopy:)` copies a tiny buffer at once instead of
/// sharing it, so streaming into it would write into memory that is already freed.
///
/// Thread-safety (hence `@unchecked Sendable`): all mutable state is in `state`; `base` is written
/// only by the transfer (one thread at a time: the HTTP driver thread) and only above
/// `state.filled`, i.e. bytes nobody can see yet; readers reach bytes only through slices published
/// under the lock after they were written.
final class RangeFetch: DownloadSink, @unchecked Sendable {
    static let minimumStreamedSize = 64 << 10

    let range: Range<Int64>
    let blockSize: Int64
    private var length: Int64 { range.upperBound - range.lowerBound }
    private let base: UnsafeMutableRawPointer?
    private let storage: Data
    private let state = Mutex(State())
    /// Bytes the transfer has handed over so far (repeats after a retry included): whether it moves.
    private let arrivedBytes = Atomic<Int64>(0)
    /// When the fetch was started (registered as in flight).
    let started = ContinuousClock.now
    /// When bytes last arrived, in nanoseconds after `started` (-1: none yet).
    private let lastArrivalNanoseconds = Atomic<Int64>(-1)
    /// Called (outside the lock, on the transfer's thread) once, when the fetch's first bytes arrive.
    private let onFirstBytes: (@Sendable (_ fetch: RangeFetch) -> Void)?
    /// Set once the fetch has ended, either way.
    private let ended = Atomic<Bool>(false)
    /// Called (outside the lock) for every block as it becomes complete, with whether a reader was
    /// waiting for it.
    private let onBlock: @Sendable (_ fetch: RangeFetch, _ index: Int64, _ data: Data, _ wasAwaited: Bool) -> Void

    private struct State {
        /// Bytes received from the start of the range without a gap.
        var filled: Int64 = 0
        /// The bytes so far, for a range too small to stream.
        var collected = Data()
        /// Complete blocks, by block index.
        var blocks: [Int64: Data] = [:]
        /// Readers waiting for a block, by block index and reader number.
        var waiters: [Int64: [UInt64: CheckedContinuation<Data, any Error>]] = [:]
        var nextWaiter: UInt64 = 1
        var failure: (any Error)?
    }

    /// - Parameter pool: where the buffer for streamed bytes comes from; nil when the range will
    ///   arrive whole through `deliver` (no buffer then).
    init(range: Range<Int64>, blockSize: Int64, pool: ReceiveBufferPool?,
         onFirstBytes: (@Sendable (_ fetch: RangeFetch) -> Void)? = nil,
         onBlock: @escaping @Sendable (_ fetch: RangeFetch, _ index: Int64, _ data: Data, _ wasAwaited: Bool) -> Void) {
        self.range = range
        self.blockSize = blockSize
        self.onBlock = onBlock
        self.onFirstBytes = onFirstBytes
        let count = Int(range.count)
        if pool == nil || count < Self.minimumStreamedSize {
            base = nil
            storage = Data()
        } else if let pool, let size = pool.size(for: count), let pooled = pool.take(size: size) {
            base = pooled
            storage = Data(bytesNoCopy: pooled, count: count, deallocator: .custom { pointer, _ in
                pool.give(pointer, size: size)
            })
        } else {
            let memory = UnsafeMutableRawPointer.allocate(byteCount: max(1, count), alignment: 4096)
            base = memory
            storage = Data(bytesNoCopy: memory, count: count, deallocator: .custom { pointer, _ in
                pointer.deallocate()
            })
        }
    }

    /// The bytes of block `index` once they are all here; throws if the fetch failed first, and
    /// `CancellationError` at once if the reader's task is cancelled (the fetch goes on for others).
    func block(_ index: Int64) async throws -> Data {
        let waiter = state.withLock { state in
            defer { state.nextWaiter &+= 1 }
            return state.nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // `Task.isCancelled` under the lock: a cancellation that came first is seen here, a later
                // one finds the waiter (the handler removes it under the same lock).
                let ready: Result<Data, any Error>? = state.withLock { state in
                    if let block = state.blocks[index] { return .success(block) }
                    if let failure = state.failure { return .failure(failure) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[index, default: [:]][waiter] = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let continuation = state.withLock { $0.waiters[index]?.removeValue(forKey: waiter) }
            continuation?.resume(throwing: CancellationError())
        }
    }

    // MARK: delivery (the transfer's side)

    /// Bytes at file offset `offset` (streaming download). Bytes already received are skipped, so
    /// a retried response that starts over never rewrites memory a reader may be looking at.
    func receive(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> Bool {
        noteArrival(bytes.count)
        let start = offset - range.lowerBound
        guard start >= 0, start + Int64(bytes.count) <= length, let source = bytes.baseAddress else { return false }
        guard let base else { return collect(bytes, at: start) }
        let filled = state.withLock { $0.filled }
        guard start <= filled else { return false }  // a gap: cannot happen within one response
        let skip = filled - start
        if skip < bytes.count {
            (base + Int(filled)).copyMemory(from: source + Int(skip), byteCount: bytes.count - Int(skip))
            advance(to: start + Int64(bytes.count))
        }
        return true
    }

    /// A small range: appends to `collected`, and hands the blocks out once it is complete.
    private func collect(_ bytes: UnsafeRawBufferPointer, at start: Int64) -> Bool {
        let (accepted, complete) = state.withLock { state -> (Bool, Data?) in
            let known = Int64(state.collected.count)
            guard start <= known else { return (false, nil) }  // a gap: cannot happen within one response
            let skip = Int(known - start)
            if skip < bytes.count { state.collected.append(contentsOf: bytes[skip...]) }
            return (true, Int64(state.collected.count) == length ? state.collected : nil)
        }
        if let complete { publish(upTo: length, from: complete) }
        return accepted
    }

    /// The whole range at once (a fetcher that returns `Data`): its blocks are slices of `data`.
    func deliver(_ data: Data) throws {
        noteArrival(data.count)
        guard Int64(data.count) == length else { throw TransferError.shortRead(expectedAt: range.lowerBound) }
        publish(upTo: length, from: data)
    }

    /// The transfer ended; blocks whose bytes did not all arrive fail.
    func finish() {
        ended.store(true, ordering: .releasing)
        let filled = state.withLock { $0.filled }
        if filled < length { fail(TransferError.shortRead(expectedAt: range.lowerBound + filled)) }
    }

    /// Fails every block not complete yet.
    func fail(_ error: any Error) {
        ended.store(true, ordering: .releasing)
        let waiters = state.withLock { state -> [CheckedContinuation<Data, any Error>] in
            guard state.failure == nil else { return [] }
            state.failure = error
            defer { state.waiters = [:] }
            return state.waiters.values.flatMap { $0.values }
        }
        waiters.forEach { $0.resume(throwing: error) }
    }

    /// Counts `count` bytes handed over now; the first ones are announced (`onFirstBytes`).
    private func noteArrival(_ count: Int) {
        guard count > 0 else { return }
        let before = arrivedBytes.wrappingAdd(Int64(count), ordering: .relaxed).oldValue
        let elapsed = ContinuousClock.now - started
        let nanoseconds = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
        lastArrivalNanoseconds.store(nanoseconds, ordering: .relaxed)
        if before == 0 { onFirstBytes?(self) }
    }

    /// Bytes received so far (a stall watchdog compares it over time).
    var bytesArrived: Int64 { arrivedBytes.load(ordering: .relaxed) }

    /// When bytes last arrived (nil: none yet).
    var lastArrival: ContinuousClock.Instant? {
        let nanoseconds = lastArrivalNanoseconds.load(ordering: .relaxed)
        return nanoseconds < 0 ? nil : started + .nanoseconds(nanoseconds)
    }

    /// Whether the fetch has finished or failed.
    var hasEnded: Bool { ended.load(ordering: .acquiring) }

    var blockIndexes: [Int64] {
        Array(stride(from: range.lowerBound / blockSize, through: (range.upperBound - 1) / blockSize, by: 1))
    }

    private func advance(to newFilled: Int64) {
        publish(upTo: newFilled, from: storage)
    }

    /// Records `newFilled` contiguous bytes and hands out the blocks that became complete.
    private func publish(upTo newFilled: Int64, from source: Data) {
        var completed: [(index: Int64, data: Data, waiters: [CheckedContinuation<Data, any Error>])] = []
        state.withLock { state in
            let oldFilled = state.filled
            guard newFilled > oldFilled else { return }
            state.filled = newFilled
            let firstIndex = range.lowerBound / blockSize
            var index = (range.lowerBound + oldFilled) / blockSize
            while true {
                let blockStart = max(index * blockSize, range.lowerBound) - range.lowerBound
                let blockEnd = min((index + 1) * blockSize, range.upperBound) - range.lowerBound
                guard blockEnd <= newFilled, blockStart < length else { break }
                if state.blocks[index] == nil, index >= firstIndex {
                    let data = source[source.startIndex + Int(blockStart)..<source.startIndex + Int(blockEnd)]
                    state.blocks[index] = data
                    completed.append((index, data, Array((state.waiters.removeValue(forKey: index) ?? [:]).values)))
                }
                index += 1
            }
        }
        for block in completed {
            block.waiters.forEach { $0.resume(returning: block.data) }
            onBlock(self, block.index, block.data, !block.waiters.isEmpty)
        }
    }
}
