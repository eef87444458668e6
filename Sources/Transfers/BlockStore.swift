import BlockCache
import Foundation
import Logging
import Synchronization

/// Where a mount's file blocks come from, shared by every open handle.
///
/// A block is looked for in memory, then among fetches in flight, then in the disk cache, and only
/// then fetched. Fetches are block-aligned HTTP ranges; concurrent readers of the same blocks share
/// one fetch, and a fetched range is split into blocks stored in memory and on disk.
/// Lock order: `state` only; the disk cache has its own lock and is never called under `state`.
public final class BlockStore: Sendable {
    public let blockSize: Int64
    private let disk: BlockCache?
    private let fetch: RangeFetcher
    private let logger: Logger
    private let state: Mutex<State>

    struct State {
        var memory: MemoryBlocks
        /// Blocks being fetched: the task fetching the range, and where that range starts.
        var inFlight: [MemoryBlocks.Key: (task: Task<Data, any Error>, start: Int64)] = [:]
    }

    /// - Parameters:
    ///   - disk: the on-disk cache, or nil for `cache=off`.
    ///   - memoryCapacity: bytes of fetched blocks held in memory for readers that have not asked yet.
    public init(disk: BlockCache?, blockSize: Int64, memoryCapacity: Int, logger: Logger, fetch: @escaping RangeFetcher) {
        self.disk = disk
        self.blockSize = disk.map { Int64($0.blockSize) } ?? blockSize
        self.fetch = fetch
        self.logger = logger
        self.state = Mutex(State(memory: MemoryBlocks(capacity: memoryCapacity)))
    }

    /// Starts fetching the blocks of `range` (block-aligned) that are neither held nor in flight.
    /// Returns at once; readers pick the blocks up with `block(_:of:)`.
    public func prefetch(_ range: Range<Int64>, of file: RemoteFile) {
        let first = range.lowerBound / blockSize, last = (range.upperBound - 1) / blockSize
        guard first <= last else { return }
        // Find the span still missing (a prefix or suffix may already be here), then fetch it in one request.
        var missing: [Int64] = []
        for index in first...last where !isAvailable(index, of: file) { missing.append(index) }
        guard let low = missing.first, let high = missing.last else { return }
        start(low * blockSize..<min(file.size, (high + 1) * blockSize), of: file)
    }

    /// The bytes of block `index` (shorter only at the end of the file).
    public func block(_ index: Int64, of file: RemoteFile) async throws -> Data {
        let key = MemoryBlocks.Key(fileID: file.id, version: file.version, index: index)
        let held = state.withLock { state -> (Data?, (task: Task<Data, any Error>, start: Int64)?) in
            (state.memory.get(key), state.inFlight[key])
        }
        if let data = held.0 { return data }
        if let flight = held.1 { return try await slice(index, from: flight.task.value, start: flight.start) }
        if let data = disk?.read(fileID: file.id, version: file.version, block: Int(index)) {
            state.withLock { $0.memory.put(key, data) }
            return data
        }
        let range = index * blockSize..<min(file.size, (index + 1) * blockSize)
        let flight = start(range, of: file)
        return try await slice(index, from: flight.task.value, start: flight.start)
    }

    /// Forgets every block of a file (all versions), in memory and on disk: used when its bytes proved wrong.
    public func drop(fileID: String) {
        state.withLock { $0.memory.remove(fileID: fileID) }
        disk?.remove(fileID: fileID)
    }

    private func isAvailable(_ index: Int64, of file: RemoteFile) -> Bool {
        let key = MemoryBlocks.Key(fileID: file.id, version: file.version, index: index)
        let inMemory = state.withLock { $0.inFlight[key] != nil || $0.memory.contains(key) }
        return inMemory || disk?.has(fileID: file.id, version: file.version, block: Int(index)) == true
    }

    /// Starts one range fetch and registers its blocks as in flight; when it ends, they move to memory
    /// and disk. Checking and registering happen under one lock, so two readers that miss the same
    /// block at once share a fetch: if the range's first block is already in flight (or arrived
    /// meanwhile), that fetch is returned instead.
    @discardableResult
    private func start(_ range: Range<Int64>, of file: RemoteFile) -> (task: Task<Data, any Error>, start: Int64) {
        let fetch = self.fetch
        let keys = stride(from: range.lowerBound / blockSize, through: (range.upperBound - 1) / blockSize, by: 1).map {
            MemoryBlocks.Key(fileID: file.id, version: file.version, index: $0)
        }
        let (flight, isNew) = state.withLock { state -> ((task: Task<Data, any Error>, start: Int64), Bool) in
            if let existing = state.inFlight[keys[0]] { return (existing, false) }
            if let held = state.memory.get(keys[0]) { return ((Task { held }, keys[0].index * blockSize), false) }
            let task = Task { try await fetch(file.id, range) }
            for key in keys { state.inFlight[key] = (task, range.lowerBound) }
            return ((task, range.lowerBound), true)
        }
        if isNew {
            Task { [weak self] in
                let result = await flight.task.result
                self?.finish(range, of: file, keys: keys, result: result)
            }
        }
        return flight
    }

    private func finish(_ range: Range<Int64>, of file: RemoteFile, keys: [MemoryBlocks.Key], result: Result<Data, any Error>) {
        guard case .success(let data) = result, data.count == range.count else {
            state.withLock { state in for key in keys where state.inFlight[key]?.start == range.lowerBound { state.inFlight[key] = nil } }
            if case .failure(let error) = result, !(error is CancellationError) {
                logger.warning("fetching bytes \(range) of file \(file.id) failed: \(error)")
            }
            return
        }
        var blocks: [(MemoryBlocks.Key, Data)] = []
        for key in keys {
            let from = Int(key.index * blockSize - range.lowerBound)
            let to = min(data.count, from + Int(blockSize))
            // Slices share the fetched buffer: no copy; the buffer lives while any of its blocks does.
            blocks.append((key, data[data.startIndex + from..<data.startIndex + to]))
        }
        state.withLock { state in
            for (key, block) in blocks {
                state.memory.put(key, block)
                state.inFlight[key] = nil
            }
        }
        if let disk {
            for (key, block) in blocks { disk.write(fileID: file.id, version: file.version, block: Int(key.index), data: block) }
        }
    }

    private func slice(_ index: Int64, from data: Data, start: Int64) throws -> Data {
        let from = Int(index * blockSize - start)
        let to = min(data.count, from + Int(blockSize))
        guard from >= 0, from < to else { throw TransferError.shortRead(expectedAt: index * blockSize) }
        return data[data.startIndex + from..<data.startIndex + to]
    }
}
