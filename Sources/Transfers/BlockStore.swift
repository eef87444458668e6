import BlockCache
import BoxAPI
import CurlHTTP
import Foundation
import Logging
import Synchronization

/// Where a mount's file blocks come from, shared by every open handle.
///
/// A block is looked for in memory, then among fetches in flight, then in the disk cache, and only
/// then fetched. Fetches are block-aligned HTTP ranges; concurrent readers of the same blocks share
/// one fetch. A streamed fetch hands out each block as soon as its bytes are in (see `RangeFetch`);
/// arrived blocks move to memory and, in the background, to the disk cache.
/// Lock order: `state` before a `RangeFetch`'s lock; the disk cache has its own lock and is never
/// called under `state`.
public final class BlockStore: Sendable {
    public let blockSize: Int64
    let disk: BlockCache?
    let writer: DiskWriter?
    private let source: Source
    /// Learns where a file's content is, ahead of its first read (only when streaming from a `BoxClient`).
    private let preparer: (@Sendable (RemoteFile) async throws -> Void)?
    private let pool: ReceiveBufferPool
    /// A fetch that receives nothing for this long fails with `TransferError.stalled`, however many
    /// times the request behind it is retried meanwhile (nil: no limit here, only the HTTP layer's).
    private let stallTimeout: Duration?
    let logger: Logger
    private let state: Mutex<State>

    enum Source: Sendable {
        case data(RangeFetcher)
        case stream(RangeStreamer)
    }

    struct State {
        var memory: MemoryBlocks
        /// Blocks being fetched, and the fetch that brings each.
        var inFlight: [MemoryBlocks.Key: RangeFetch] = [:]
        /// Files whose download location is being asked for, and the task asking: a read of such a
        /// file waits for it rather than asking the API a second time.
        var preparing: [RemoteFile: Task<Void, Never>] = [:]
        /// Versions a whole read matched in this mount and no block of which was fetched since (at most
        /// `maximumVerifiedInMemory`: forgetting one only costs its pages at the next open). The disk cache keeps
        /// its own markers.
        var verified: Set<FileVersion> = []
    }

    static let maximumVerifiedInMemory = 4096

    struct FileVersion: Hashable {
        var id: String
        var version: String
        init(_ file: RemoteFile) { (id, version) = (file.id, file.version) }
    }

    /// - Parameters:
    ///   - disk: the on-disk cache, or nil for `cache=off`.
    ///   - memoryCapacity: bytes of fetched blocks held in memory for readers that have not asked yet.
    ///   - fetch: returns a whole range at once (blocks become readable when all of it is here).
    public convenience init(disk: BlockCache?, blockSize: Int64, memoryCapacity: Int, logger: Logger,
                            fetch: @escaping RangeFetcher) {
        self.init(disk: disk, blockSize: blockSize, memoryCapacity: memoryCapacity, logger: logger,
                  source: .data(fetch), pool: .shared, preparer: nil)
    }

    /// - Parameter stream: delivers a range's bytes as they arrive (each block is readable as soon as
    ///   its bytes are in); the mount's choice: `BoxClient.download(fileID:range:into:)`.
    public convenience init(disk: BlockCache?, blockSize: Int64, memoryCapacity: Int, logger: Logger,
                            stream: @escaping RangeStreamer) {
        self.init(disk: disk, blockSize: blockSize, memoryCapacity: memoryCapacity, logger: logger,
                  source: .stream(stream), pool: .shared, preparer: nil)
    }

    /// Streams ranges from Box with `client`, reusing a file's pre-signed download location for its
    /// next ranges (one request per range instead of two); `prepare(_:)` works with this one.
    /// - Parameter stallTimeout: a fetch that receives nothing for this long fails (`TransferError.stalled`).
    public convenience init(disk: BlockCache?, blockSize: Int64, memoryCapacity: Int, logger: Logger,
                            client: BoxClient, stallTimeout: Duration? = nil) {
        let locations = DownloadLocations()
        let stream: RangeStreamer = { file, range, sink in
            try await client.download(
                fileID: file.id, range: range, into: sink, locations: locations, version: file.version)
        }
        self.init(disk: disk, blockSize: blockSize, memoryCapacity: memoryCapacity, logger: logger,
                  source: .stream(stream), pool: .shared, stallTimeout: stallTimeout) { file in
            try await client.prepareDownload(fileID: file.id, version: file.version, locations: locations)
        }
    }

    init(disk: BlockCache?, blockSize: Int64, memoryCapacity: Int, logger: Logger, source: Source,
         pool: ReceiveBufferPool, stallTimeout: Duration? = nil,
         preparer: (@Sendable (RemoteFile) async throws -> Void)?) {
        self.disk = disk
        self.writer = disk.map { DiskWriter(cache: $0, logger: logger) }
        self.blockSize = disk.map { Int64($0.blockSize) } ?? blockSize
        self.source = source
        self.preparer = preparer
        self.pool = pool
        self.stallTimeout = stallTimeout
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
        let held = state.withLock { state -> (Data?, RangeFetch?) in (state.memory.get(key), state.inFlight[key]) }
        if let data = held.0 { return data }
        if let fetch = held.1 { return try await fetch.block(index) }
        if let data = disk?.read(fileID: file.id, version: file.version, block: Int(index)) {
            state.withLock { $0.memory.put(key, data, wasRead: true) }
            return data
        }
        // Another reader's fetch may have brought the block (or started) while the disk was read.
        let again = state.withLock { state -> (Data?, RangeFetch?) in (state.memory.get(key), state.inFlight[key]) }
        if let data = again.0 { return data }
        if let fetch = again.1 { return try await fetch.block(index) }
        let range = index * blockSize..<min(file.size, (index + 1) * blockSize)
        return try await start(range, of: file).block(index)
    }

    /// Starts learning where `file`'s content can be downloaded, without fetching any of it, so its
    /// first read needs one request instead of two. For a caller that expects the file to be read
    /// soon, e.g. the next files of a folder that is being read file after file (`grep -r`): with
    /// 20 ms per request, half of each small file's wait. Returns at once; does nothing unless the
    /// store streams from a `BoxClient`, or when the file's blocks are already here. A fetch of the
    /// file that starts meanwhile waits for the preparation (see `run`), so the location is asked once.
    public func prepare(_ file: RemoteFile) {
        guard let preparer, file.size > 0,
            disk?.has(fileID: file.id, version: file.version, block: 0) != true
        else { return }
        let logger = self.logger
        let first = MemoryBlocks.Key(fileID: file.id, version: file.version, index: 0)
        state.withLock { state in
            // Checked under the lock a fetch registers under: a fetch already under way asks for itself.
            guard state.preparing[file] == nil, state.inFlight[first] == nil, !state.memory.contains(first)
            else { return }
            // Registered under the lock that `run` reads it with; the task removes itself when done.
            state.preparing[file] = Task { [weak self] in
                do {
                    try await preparer(file)
                } catch {
                    logger.debug("could not prepare the download of file \(file.id): \(error)")
                }
                _ = self?.state.withLock { $0.preparing.removeValue(forKey: file) }
            }
        }
    }

    /// Returns once the blocks fetched so far are in the disk cache (they are written in the background).
    public func flushDiskWrites() async {
        await writer?.flush()
    }

    /// Returns when the disk cache's writer is not too far behind (readers pace themselves with it).
    public func waitForDiskWriter() async {
        await writer?.waitForRoom()
    }

    /// Frees at least `bytes` of disk by evicting cached blocks, for a write that found the disk
    /// full; returns false when the disk cache had nothing to give.
    public func giveWay(_ bytes: Int64) -> Bool {
        (disk?.giveWay(bytes) ?? 0) > 0
    }

    /// Forgets every block of a file (all versions), in memory and on disk, and that any was verified: used
    /// when its bytes proved wrong.
    public func drop(fileID: String) {
        state.withLock { state in
            state.memory.remove(fileID: fileID)
            state.verified = state.verified.filter { $0.id != fileID }
        }
        disk?.remove(fileID: fileID)
    }

    /// Whether every held block of this version was part of a whole read that matched Box's SHA-1 (in this
    /// mount, or in an earlier one by the disk cache's marker) and none was fetched since. Only then may the
    /// kernel keep the file's pages across opens: an unverified version's next whole read must reach the
    /// daemon, whose check sees every byte.
    public func isVerified(_ file: RemoteFile) -> Bool {
        state.withLock { $0.verified.contains(FileVersion(file)) }
            || disk?.isVerified(fileID: file.id, version: file.version) == true
    }

    /// Records that a whole read of this version matched Box's SHA-1. Call once the blocks it fetched are on
    /// disk (`flushDiskWrites`): writing a block clears the disk cache's marker.
    public func markVerified(_ file: RemoteFile) {
        let key = FileVersion(file)
        state.withLock { state in
            if state.verified.count >= Self.maximumVerifiedInMemory { state.verified.removeFirst() }
            state.verified.insert(key)
        }
        disk?.markVerified(fileID: file.id, version: file.version)
    }

    private func isAvailable(_ index: Int64, of file: RemoteFile) -> Bool {
        let key = MemoryBlocks.Key(fileID: file.id, version: file.version, index: index)
        let inMemory = state.withLock { $0.inFlight[key] != nil || $0.memory.contains(key) }
        return inMemory || disk?.has(fileID: file.id, version: file.version, block: Int(index)) == true
    }

    /// Starts one range fetch and registers its blocks as in flight. Checking and registering happen
    /// under one lock, so two readers that miss the same block at once share a fetch: if the range's
    /// first block is already in flight, that fetch is returned instead.
    @discardableResult
    private func start(_ range: Range<Int64>, of file: RemoteFile) -> RangeFetch {
        let firstKey = MemoryBlocks.Key(fileID: file.id, version: file.version, index: range.lowerBound / blockSize)
        if let existing = state.withLock({ $0.inFlight[firstKey] }) { return existing }
        let streams = if case .stream = source { true } else { false }
        let fetch = RangeFetch(range: range, blockSize: blockSize, pool: streams ? pool : nil) {
            [weak self] fetch, index, data, awaited in
            self?.arrived(index, data, of: file, from: fetch, wasAwaited: awaited)
        }
        let (chosen, isNew) = state.withLock { state -> (RangeFetch, Bool) in
            if let existing = state.inFlight[firstKey] { return (existing, false) }
            for index in fetch.blockIndexes {
                state.inFlight[MemoryBlocks.Key(fileID: file.id, version: file.version, index: index)] = fetch
            }
            return (fetch, true)
        }
        if isNew { run(fetch, of: file) }
        return chosen
    }

    private func run(_ fetch: RangeFetch, of file: RemoteFile) {
        let source = self.source
        let work = Task { [weak self] in
            do {
                // The file's location is being learnt already: the fetch then needs no API call.
                if let preparation = self?.state.withLock({ $0.preparing[file] }) { await preparation.value }
                switch source {
                case .data(let fetcher): try fetch.deliver(try await fetcher(file.id, fetch.range))
                case .stream(let streamer): _ = try await streamer(file, fetch.range, fetch)
                }
                fetch.finish()
            } catch {
                if !(error is CancellationError) {
                    self?.logger.warning("fetching bytes \(fetch.range) of file \(file.id) failed: \(error)")
                }
                fetch.fail(error)
            }
            self?.forget(fetch, of: file)
        }
        if let stallTimeout { watch(fetch, of: file, work: work, timeout: stallTimeout) }
    }

    /// Fails `fetch` and cancels its work (aborting the transfer) once nothing has arrived for
    /// `timeout`, checked about four times per timeout (at least every second). The HTTP layer
    /// aborts a silent transfer after the same time, but the retry policy may send it again; a
    /// reader waits for one stall, not for one per attempt.
    private func watch(_ fetch: RangeFetch, of file: RemoteFile, work: Task<Void, Never>, timeout: Duration) {
        let tick = min(timeout / 4, .seconds(1))
        Task { [weak self, weak fetch] in
            var seen: Int64 = -1
            var lastMove = ContinuousClock.now
            while true {
                guard (try? await Task.sleep(for: tick)) != nil, let fetch, !fetch.hasEnded else { return }
                let arrived = fetch.bytesArrived
                if arrived != seen {
                    (seen, lastMove) = (arrived, .now)
                    continue
                }
                guard ContinuousClock.now - lastMove >= timeout else { continue }
                let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
                let error = TransferError.stalled(fileID: file.id, range: fetch.range, seconds: seconds)
                self?.logger.warning("\(error)")
                fetch.fail(error)
                work.cancel()
                return
            }
        }
    }

    /// A block of a fetch is complete: it moves from in flight to memory, and to the disk cache.
    private func arrived(_ index: Int64, _ data: Data, of file: RemoteFile, from fetch: RangeFetch, wasAwaited: Bool) {
        let key = MemoryBlocks.Key(fileID: file.id, version: file.version, index: index)
        state.withLock { state in
            state.memory.put(key, data, wasRead: wasAwaited)
            if state.inFlight[key] === fetch { state.inFlight[key] = nil }
            state.verified.remove(FileVersion(file))
        }
        // A fetched block is unverified: so is its version now, also on disk before the block's write lands
        // (which would clear the marker too, but only if there is room for it).
        disk?.unmarkVerified(fileID: file.id, version: file.version)
        writer?.write([(index: index, data: data)], of: file)
    }

    /// After a fetch ended: blocks it never brought are no longer in flight (a later read fetches them).
    private func forget(_ fetch: RangeFetch, of file: RemoteFile) {
        let missing = fetch.missingBlocks
        guard !missing.isEmpty else { return }
        state.withLock { state in
            for index in missing {
                let key = MemoryBlocks.Key(fileID: file.id, version: file.version, index: index)
                if state.inFlight[key] === fetch { state.inFlight[key] = nil }
            }
        }
    }
}
