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
///
/// No block is fetched twice for readers that keep reading: read-ahead (`prefetch(_:of:withinBudget:)`)
/// starts only while the bytes in flight and the fetched blocks nobody has read yet fit `aheadBudget`, a
/// share of the memory capacity, so memory never has to evict an unread block for room. (Without it, 64
/// readers' read-ahead, 24 MiB each, overflowed 64 MiB of memory: unread blocks were evicted, and those the
/// disk writer, far behind, had not stored were fetched again, 18–27 % of the bytes.) What a reader cannot
/// read ahead now it asks for at its next read (`FileReader`); what it needs now is always fetched.
/// Lock order: `state` before a `RangeFetch`'s lock and before the disk writer's queue (`DiskWriter.queued`);
/// the disk cache has its own lock and is never called under `state`.
public final class BlockStore: Sendable {
    public let blockSize: Int64
    let disk: BlockCache?
    let writer: DiskWriter?
    let source: Source
    /// Learns where a file's content is, ahead of its first read (only when streaming from a `BoxClient`).
    private let preparer: (@Sendable (RemoteFile) async throws -> Void)?
    private let pool: ReceiveBufferPool
    /// A fetch that receives nothing for this long fails with `TransferError.stalled`, however many
    /// times the request behind it is retried meanwhile (nil: no limit here, only the HTTP layer's).
    let stallTimeout: Duration?
    /// The pace under Box's rate limits (nil: unpaced): while calls wait for it, a fetch that waits is not stalled.
    let pacer: Pacer?
    let logger: Logger
    let state: Mutex<State>

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
        /// Bytes of blocks in flight (not arrived yet), counted against `aheadBudget` with unread memory.
        var inFlightBytes = 0
        /// When each file's latest block arrived: a claim made after a look at the disk checks nothing arrived since.
        var arrivals = ArrivalTimes()
        /// Every fetch in flight, with the bytes of its blocks still counted in `inFlightBytes`: released once,
        /// by the block's arrival or by the fetch's end or drop, whichever comes first.
        var pending: [ObjectIdentifier: Pending] = [:]
        /// When a fetch was declared stalled, while no fetch started since has received a byte (nil: none, or
        /// downloads moved again since).
        var stalledSince: ContinuousClock.Instant?
        /// Small files whose whole content is being fetched ahead of their first read (`fetchAhead`), and the fetch:
        /// a read of such a file waits for it rather than fetching the block itself. Their bytes count in `inFlightBytes`.
        var ahead: [FileVersion: AheadFetch] = [:]
    }

    /// A fetch in flight, as the store accounts for it.
    struct Pending {
        let fetch: RangeFetch
        let file: RemoteFile
        /// Bytes of each block not arrived yet, as counted in `inFlightBytes`.
        var counted: [Int64: Int]
        /// The transfer, cancelled when the fetch is dropped.
        var work: Task<Void, Never>?
    }

    /// The error readers of a fetch dropped for a fresh one get: they look for their block again.
    struct FetchDropped: Error {}

    /// Bytes that read-ahead may keep in flight or fetched-but-unread, across all readers: three quarters
    /// of the memory capacity (the rest holds read blocks for readers close behind, and what readers
    /// fetch for their current read beyond it).
    let aheadBudget: Int

    static let maximumVerifiedInMemory = 4096
    /// Looks a reader or read-ahead takes at a block before it fetches it whatever else arrived meanwhile (see
    /// `claim`): a file whose blocks keep arriving would otherwise keep it looking.
    static let maximumLooks = 16

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
                  source: .stream(stream), pool: .shared, stallTimeout: stallTimeout, pacer: client.pacer) { file in
            try await client.prepareDownload(fileID: file.id, version: file.version, locations: locations)
        }
        // Box out of reach, then answering again: transfers sent before, still silent, are not waited for.
        client.connectivity.whenReachedAgain { [weak self] in self?.boxAnswersAgain() }
    }

    init(disk: BlockCache?, blockSize: Int64, memoryCapacity: Int, logger: Logger, source: Source,
         pool: ReceiveBufferPool, stallTimeout: Duration? = nil, pacer: Pacer? = nil,
         preparer: (@Sendable (RemoteFile) async throws -> Void)?) {
        self.pacer = pacer
        self.disk = disk
        self.writer = disk.map { DiskWriter(cache: $0, logger: logger) }
        self.blockSize = disk.map { Int64($0.blockSize) } ?? blockSize
        self.source = source
        self.preparer = preparer
        self.pool = pool
        self.stallTimeout = stallTimeout
        self.logger = logger
        self.state = Mutex(State(memory: MemoryBlocks(capacity: memoryCapacity)))
        self.aheadBudget = memoryCapacity / 4 * 3
        self.quiet = min(stallTimeout.map { $0 / 4 } ?? .seconds(1), .seconds(1))
        self.probe = min(stallTimeout ?? .seconds(2), .seconds(2))
    }

    /// How long a fetch sent while downloads stall (`State.stalledSince`) may wait for its first byte before it is
    /// declared stalled too: it probes whether the server answers again, and a read then costs this, not
    /// `stallTimeout` (the kernel's queued read-ahead of a failed read would otherwise send fetches that hold the
    /// file's pages for the whole timeout, and a read after the server came back waited for them).
    let probe: Duration

    /// How long a fetch must have received nothing before a stall or Box's return drops it (see `silent(in:)`): a
    /// fetch whose bytes still arrive, however slowly, is never dropped.
    let quiet: Duration

    /// Starts fetching the blocks of `range` (block-aligned) that are neither held nor in flight.
    /// Returns at once; readers pick the blocks up with `block(_:of:)`.
    ///
    /// `withinBudget` (read-ahead): starts only as many blocks as `aheadBudget` has room for, and returns
    /// the rest of the range, not started (nil when all of it is under way or here).
    @discardableResult
    public func prefetch(_ range: Range<Int64>, of file: RemoteFile, withinBudget: Bool = false) -> Range<Int64>? {
        let first = range.lowerBound / blockSize, last = (range.upperBound - 1) / blockSize
        guard first <= last else { return nil }
        // Each run of missing blocks is one request; blocks already here or in flight are never asked again.
        var index = first
        var looks = 0
        while index <= last {
            let time = state.withLock { $0.arrivals.clock }
            guard !isAvailable(index, of: file) else {
                (index, looks) = (index + 1, 0)
                continue
            }
            var high = index
            while high < last, !isAvailable(high + 1, of: file) { high += 1 }
            if withinBudget {
                let room = state.withLock { aheadBudget - $0.memory.unreadBytes - $0.inFlightBytes }
                let fits = Int64(max(0, room)) / blockSize
                guard fits > 0 else { return index * blockSize..<range.upperBound }
                high = min(high, index + fits - 1)
            }
            // After a few looks at a file whose blocks keep arriving, the arrivals are not asked about (a block on
            // disk since this look is then fetched again).
            looks += 1
            let started = start(index * blockSize..<min(file.size, (high + 1) * blockSize), of: file,
                                lookedAt: looks > Self.maximumLooks ? .max : time)
            guard let started else { continue }  // looked at again
            looks = 0
            // Cut short where another reader's fetch took over: the blocks after it are looked at again.
            index = max(index + 1, min(high + 1, (started.range.upperBound + blockSize - 1) / blockSize))
        }
        return nil
    }

    /// A reader of `file` is gone: the blocks it read ahead from block `index` on and never read count as
    /// read, so they leave memory first and stop taking read-ahead's budget.
    public func abandon(_ file: RemoteFile, from index: Int64) {
        state.withLock { $0.memory.markRead(fileID: file.id, version: file.version, from: index) }
    }

    /// The bytes of block `index` (shorter only at the end of the file), of which the reader takes `taking`
    /// bytes: once its readers took all of it, the block may leave memory first (see `MemoryBlocks.consume`).
    public func block(_ index: Int64, of file: RemoteFile, taking bytes: Int = .max) async throws -> Data {
        let key = MemoryBlocks.Key(fileID: file.id, version: file.version, index: index)
        let range = index * blockSize..<min(file.size, (index + 1) * blockSize)
        var looks = 0
        while true {
            looks += 1
            let held = state.withLock { state -> (Data?, RangeFetch?, UInt64, AheadFetch?) in
                (state.memory.consume(key, bytes: bytes), state.inFlight[key], state.arrivals.clock,
                 state.ahead[FileVersion(file)])
            }
            if let data = held.0 { return data }
            // The whole file is being fetched ahead: the reader takes its bytes once they matched Box's SHA-1; if it
            // failed, the block is fetched here (looked for again).
            if let ahead = held.3 {
                guard let data = await join(ahead, of: file) else { continue }
                state.withLock { state in
                    if !state.memory.contains(key) { state.memory.put(key, data) }
                    _ = state.memory.consume(key, bytes: bytes)
                }
                return data
            }
            if let fetch = held.1 {
                if let data = try await read(index, from: fetch, key: key, taking: bytes) { return data }
                continue  // the fetch was dropped for a fresh one
            }
            // Waiting for the disk writer, or on disk.
            if let data = writer?.queued(fileID: file.id, version: file.version, block: index)
                ?? disk?.read(fileID: file.id, version: file.version, block: Int(index))
            {
                state.withLock { state in
                    state.memory.put(key, data)
                    _ = state.memory.consume(key, bytes: bytes)
                }
                return data
            }
            // Nil: another reader's fetch may have brought the block since it was looked for; looked for again.
            let time = looks > Self.maximumLooks ? .max : held.2
            if let fetch = start(range, of: file, lookedAt: time),
                let data = try await read(index, from: fetch, key: key, taking: bytes)
            {
                return data
            }
        }
    }

    /// A block from its fetch. Arrived blocks go to memory as unread; what the reader took counts once it
    /// has (a block taken whole would otherwise hold read-ahead's budget until evicted).
    ///
    /// The fetch hands a block to its waiting readers before `arrived` puts it in memory, and a reader may
    /// find it complete in the fetch before that too: such a reader puts it in memory itself, so what it took
    /// is counted (`arrived` then keeps that entry). Counted on an entry `arrived` replaced later, it was lost:
    /// the block stayed unread, every such block took read-ahead's budget for good, and a long sequential read
    /// ended up fetching one block at a time (859 of 910 requests of a cold 1 GiB `cat` were 1 MiB).
    /// Nil when the fetch was dropped for a fresh one (`FetchDropped`): the reader looks again.
    private func read(_ index: Int64, from fetch: RangeFetch, key: MemoryBlocks.Key, taking bytes: Int) async throws -> Data? {
        let data: Data
        do {
            data = try await fetch.block(index)
        } catch is FetchDropped {
            return nil
        }
        state.withLock { state in
            if !state.memory.contains(key) { state.memory.put(key, data) }
            _ = state.memory.consume(key, bytes: bytes)
        }
        return data
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
            // Not while downloads stall: a fetch of the file would wait for the look-up the server holds.
            guard state.preparing[file] == nil, state.inFlight[first] == nil, !state.memory.contains(first),
                state.ahead[FileVersion(file)] == nil, state.stalledSince == nil
            else { return }
            // Registered under the lock that `run` reads it with; the task removes itself when done.
            state.preparing[file] = Task { [weak self] in
                do {
                    // Read-ahead: background, so a read a user waits on takes the pace's next token first.
                    try await CallPriority.background { try await preparer(file) }
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
        let ahead = state.withLock { state in
            state.memory.remove(fileID: fileID)
            state.verified = state.verified.filter { $0.id != fileID }
            return state.ahead.keys.filter { $0.id == fileID }.compactMap { Self.takeAhead($0, from: &state)?.task }
        }
        ahead.forEach { $0.cancel() }
        writer?.forget(fileID: fileID)
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
        let inMemory = state.withLock {
            $0.inFlight[key] != nil || $0.memory.contains(key) || $0.ahead[FileVersion(file)] != nil
        }
        return inMemory || writer?.queued(fileID: file.id, version: file.version, block: index) != nil
            || disk?.has(fileID: file.id, version: file.version, block: Int(index)) == true
    }

    /// Starts one range fetch and registers its blocks as in flight. Checking and registering happen
    /// under one lock, so two readers that miss the same block at once share a fetch: if the range's
    /// first block is already in flight, that fetch is returned instead, and the range is cut before
    /// the first later block another reader's fetch brings (or brought) meanwhile. The caller looked
    /// block by block without the lock; a run registered whole overwrote a fetch started since for a
    /// block inside it, and that block was fetched twice.
    /// Returns nil when the caller must look again: the range's first block is in memory or queued for the disk
    /// by then, or a block of the file arrived after `time` (the arrival clock when the caller looked).
    @discardableResult
    private func start(_ range: Range<Int64>, of file: RemoteFile, lookedAt time: UInt64) -> RangeFetch? {
        var wanted = range
        while true {
            let free: Range<Int64>
            switch state.withLock({ claim(wanted, of: file, lookedAt: time, in: $0) }) {
            case .existing(let fetch): return fetch
            case .lookAgain: return nil
            case .free(let range): free = range
            }
            let streams = if case .stream = source { true } else { false }
            let fetch = RangeFetch(
                range: free, blockSize: blockSize, pool: streams ? pool : nil,
                onFirstBytes: { [weak self] fetch in self?.firstBytes(of: fetch) }
            ) { [weak self] fetch, index, data, _ in
                self?.arrived(index, data, of: file, from: fetch)
            }
            // The buffer was taken outside the lock: what changed meanwhile is looked at again.
            let outcome = state.withLock { state -> Claim? in
                let now = claim(free, of: file, lookedAt: time, in: state)
                guard case .free(let still) = now, still == free else { return now }
                var counted: [Int64: Int] = [:]
                for index in fetch.blockIndexes {
                    state.inFlight[MemoryBlocks.Key(fileID: file.id, version: file.version, index: index)] = fetch
                    counted[index] = Int(min((index + 1) * blockSize, free.upperBound) - max(index * blockSize, free.lowerBound))
                }
                state.pending[ObjectIdentifier(fetch)] = Pending(fetch: fetch, file: file, counted: counted)
                state.inFlightBytes += Int(free.count)
                return nil
            }
            switch outcome {
            case nil:
                run(fetch, of: file)
                return fetch
            case .existing(let other): return other
            case .lookAgain: return nil
            case .free(let shorter): wanted = shorter
            }
        }
    }

    private enum Claim {
        /// The range's first block is in flight already, in this fetch.
        case existing(RangeFetch)
        /// The range's first block is in memory or queued for the disk, or a block of the file arrived since the
        /// caller looked (it may be on disk now): the caller looks again. (A block is queued for the disk before
        /// it leaves the in-flight table and leaves the queue once on disk, so under the lock a block fetched
        /// since the caller's look is always found, or its arrival is.)
        case lookAgain
        /// The leading part of the range that no fetch brings and memory does not hold (from its first block,
        /// which is never cut: a reader waiting for it gets a fetch).
        case free(Range<Int64>)
    }

    private func claim(_ range: Range<Int64>, of file: RemoteFile, lookedAt time: UInt64, in state: State) -> Claim {
        let key = { MemoryBlocks.Key(fileID: file.id, version: file.version, index: $0) }
        let queued = { self.writer?.queued(fileID: file.id, version: file.version, block: $0) != nil }
        let first = range.lowerBound / blockSize
        if let existing = state.inFlight[key(first)] { return .existing(existing) }
        // A small file fetched whole ahead (`fetchAhead`): a reader waits for that fetch (`block`), read-ahead skips it.
        if state.ahead[FileVersion(file)] != nil { return .lookAgain }
        if state.memory.contains(key(first)) || queued(first) || state.arrivals.arrived(FileVersion(file), since: time) {
            return .lookAgain
        }
        var index = first + 1
        while index * blockSize < range.upperBound {
            if state.inFlight[key(index)] != nil || state.memory.contains(key(index)) || queued(index) {
                return .free(range.lowerBound..<index * blockSize)
            }
            index += 1
        }
        return .free(range)
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
            self?.forget(fetch)
        }
        state.withLock { $0.pending[ObjectIdentifier(fetch)]?.work = work }
        if let stallTimeout { watch(fetch, of: file, timeout: stallTimeout) }
    }

    /// Fails `fetch`, cancels its work (aborting the transfer) and forgets it once nothing has arrived for
    /// `timeout`, checked about four times per timeout (at least every second). The HTTP layer
    /// aborts a silent transfer after the same time, but the retry policy may send it again; a
    /// reader waits for one stall, not for one per attempt. The other fetches sent before that are just as
    /// silent go with it (`declareStalled`).
    private func watch(_ fetch: RangeFetch, of file: RemoteFile, timeout: Duration) {
        let tick = min(timeout / 4, .milliseconds(500))
        let pacer = self.pacer
        Task { [weak self, weak fetch] in
            var seen: Int64 = 0
            var lastMove = ContinuousClock.now
            while true {
                guard (try? await Task.sleep(for: tick)) != nil, let self, let fetch, !fetch.hasEnded else { return }
                let arrived = fetch.bytesArrived
                if arrived != seen {
                    (seen, lastMove) = (arrived, .now)
                    continue
                }
                // Calls waiting for Box's rate limit (this fetch's content call, maybe) are not a stalled transfer:
                // the wait ends within a window, and the watch counts from then.
                if let pacer, !pacer.waiting.isEmpty {
                    lastMove = .now
                    continue
                }
                // Sent while downloads stall and nothing came yet: a probe, given up sooner.
                let probing = arrived == 0 && sentIntoStall(fetch)
                let limit = probing ? min(probe, timeout) : timeout
                guard ContinuousClock.now - lastMove >= limit else { continue }
                let error = TransferError.stalled(fileID: file.id, range: fetch.range, seconds: Self.seconds(limit))
                logger.warning("\(error)\(probing ? ", sent while downloads stall" : "")")
                declareStalled(fetch, failing: error, silentSince: lastMove)
                return
            }
        }
    }

    /// A block of a fetch is complete: it moves from in flight to memory, and to the disk cache.
    private func arrived(_ index: Int64, _ data: Data, of file: RemoteFile, from fetch: RangeFetch) {
        let key = MemoryBlocks.Key(fileID: file.id, version: file.version, index: index)
        // A fetched block is unverified: so is its version now, also on disk before the block's write lands
        // (which would clear the marker too, but only if there is room for it).
        disk?.unmarkVerified(fileID: file.id, version: file.version)
        // Queued for the disk before it leaves the in-flight table: a reader that misses it in memory (taken
        // and evicted at once) then finds it queued. Queued after, it was in neither for a moment, and a read
        // ahead that looked then fetched it again.
        writer?.write([(index: index, data: data)], of: file)
        state.withLock { state in
            // Unread even if a reader waited: it marks the block read once it has read it to the end. A reader
            // that took it from the fetch first put it already, with what it took (see `read(_:from:key:taking:)`).
            if !state.memory.contains(key) { state.memory.put(key, data) }
            // Counted once: a dropped fetch's blocks were released when it was dropped.
            if let bytes = state.pending[ObjectIdentifier(fetch)]?.counted.removeValue(forKey: index) {
                state.inFlightBytes -= bytes
            }
            if state.inFlight[key] === fetch { state.inFlight[key] = nil }
            state.verified.remove(FileVersion(file))
            state.arrivals.record(FileVersion(file))
        }
    }

    /// After a fetch ended, or when it is dropped: blocks it never brought are no longer in flight (a later read
    /// fetches them), and their bytes leave read-ahead's budget. Once per fetch: answers its entry the first time.
    @discardableResult
    private func forget(_ fetch: RangeFetch) -> Pending? {
        state.withLock { state in
            guard let entry = state.pending.removeValue(forKey: ObjectIdentifier(fetch)) else { return nil }
            for (index, bytes) in entry.counted {
                let key = MemoryBlocks.Key(fileID: entry.file.id, version: entry.file.version, index: index)
                if state.inFlight[key] === fetch { state.inFlight[key] = nil }
                state.inFlightBytes -= bytes
            }
            return entry
        }
    }

    /// Whether `fetch` was sent while downloads stall.
    private func sentIntoStall(_ fetch: RangeFetch) -> Bool {
        state.withLock { $0.stalledSince.map { fetch.started >= $0 } ?? false }
    }

    // MARK: stalls

    /// Bytes counted in flight against read-ahead's budget, fetches in flight, blocks registered in flight (tests).
    var inFlightCounts: (bytes: Int, fetches: Int, blocks: Int) {
        state.withLock { ($0.inFlightBytes, $0.pending.count, $0.inFlight.count) }
    }

    /// Forgets `fetch` at once (a read after this one starts a fresh fetch, and the budget it held is free), fails it
    /// with `error` (its readers get it) and cancels its transfer. False if it was forgotten already.
    @discardableResult
    private func drop(_ fetch: RangeFetch, failing error: any Error) -> Bool {
        guard let entry = forget(fetch) else { return false }
        fetch.fail(error)
        entry.work?.cancel()
        return true
    }

    /// `fetch` received nothing since `silentSince` for the stall timeout: it fails (its readers get `error`), and
    /// so do the fetches sent before now that received nothing since then either and have been silent for `quiet`:
    /// the same server is not answering them, and a read that comes later must not wait for them. Until a fetch sent
    /// from now on receives a byte, downloads count as stalled (`firstBytes(of:)`).
    private func declareStalled(_ fetch: RangeFetch, failing error: TransferError, silentSince: ContinuousClock.Instant) {
        let now = ContinuousClock.now
        let (silent, preparations) = state.withLock { state -> ([Pending], [@Sendable () -> Void]) in
            if state.stalledSince == nil { state.stalledSince = now }
            let silent = Self.silent(in: state, startedBefore: now, noByteSince: silentSince, quiet: quiet, now: now)
                .filter { $0.fetch !== fetch }
            return (silent, Self.takePreparations(from: &state))
        }
        preparations.forEach { $0() }
        // The others first: a reader woken by this fetch's failure finds none of them in flight.
        for entry in silent {
            let seconds = Self.seconds(now - (entry.fetch.lastArrival ?? entry.fetch.started))
            let error = TransferError.stalled(fileID: entry.file.id, range: entry.fetch.range, seconds: seconds)
            if drop(entry.fetch, failing: error) { logger.warning("\(error), while another download of the same server stalled") }
        }
        drop(fetch, failing: error)
    }

    /// A fetch received its first bytes. If it was sent after a stall was declared, downloads move again: the fetches
    /// sent before it that received nothing since the stall are dropped, and their readers fetch anew at once
    /// rather than waiting for a transfer the server may never answer (a read right after a stalled server came
    /// back waited 30.4 s for one, with stall_timeout=30).
    private func firstBytes(of fetch: RangeFetch) {
        let now = ContinuousClock.now
        let outcome = state.withLock { state -> ([Pending], [@Sendable () -> Void])? in
            guard let since = state.stalledSince, fetch.started > since else { return nil }
            state.stalledSince = nil
            let silent = Self.silent(in: state, startedBefore: fetch.started, noByteSince: since, quiet: .zero, now: now)
            return (silent, Self.takePreparations(from: &state))
        }
        guard let (silent, preparations) = outcome else { return }
        preparations.forEach { $0() }
        logger.notice("downloads move again after a stall\(Self.dropping(silent))")
        for entry in silent { drop(entry.fetch, failing: FetchDropped()) }
    }

    /// Box answers again after being out of reach (`Connectivity`): the fetches that received nothing for `quiet`
    /// are dropped, and their readers fetch anew at once. Not while downloads stall: the API answering says nothing of
    /// the download host, whose return the first fetch that receives a byte tells (`firstBytes(of:)`). The fetches
    /// sent for the dropped ones are probes until one receives a byte (`probe`): Box's "return" may be an API answer
    /// while the download host still stalls (the HTTP layer's timeout of a stalled download makes Box unreachable
    /// for a moment), and their readers must not wait a whole `stallTimeout` again.
    public func boxAnswersAgain() {
        let now = ContinuousClock.now
        let (silent, preparations) = state.withLock { state -> ([Pending], [@Sendable () -> Void]) in
            guard state.stalledSince == nil else { return ([], []) }
            let silent = Self.silent(in: state, startedBefore: now, noByteSince: now, quiet: quiet, now: now)
            if !silent.isEmpty { state.stalledSince = now }
            return (silent, Self.takePreparations(from: &state))
        }
        preparations.forEach { $0() }
        guard !silent.isEmpty else { return }
        logger.notice("Box answers again\(Self.dropping(silent))")
        for entry in silent { drop(entry.fetch, failing: FetchDropped()) }
    }

    /// The fetches in flight sent before `startedBefore` that received no byte since `noByteSince` and none for
    /// `quiet` (a fetch whose bytes still arrive is never among them).
    private static func silent(
        in state: State, startedBefore: ContinuousClock.Instant, noByteSince: ContinuousClock.Instant,
        quiet: Duration, now: ContinuousClock.Instant
    ) -> [Pending] {
        state.pending.values.filter { entry in
            let fetch = entry.fetch
            guard !fetch.hasEnded, fetch.started < startedBefore else { return false }
            let lastMove = fetch.lastArrival ?? fetch.started
            return (fetch.lastArrival.map { $0 < noByteSince } ?? true) && now - lastMove >= quiet
        }
    }

    /// The download-location look-ups started ahead of reads (`prepare(_:)`), forgotten to be cancelled: a fetch of
    /// the file waits for its look-up (`run`), which a stalled server holds for the HTTP layer's timeout and retries
    /// (after Box came back from a stall, a read failed waiting for one sent into it). A read asks for itself.
    /// The small files fetched whole ahead (`fetchAhead`) go too, for the same reason: a read waits for them.
    /// Answers how to cancel each.
    private static func takePreparations(from state: inout State) -> [@Sendable () -> Void] {
        defer { state.preparing = [:] }
        let ahead = Array(state.ahead.keys).compactMap { takeAhead($0, from: &state)?.task }
        let preparations = state.preparing.values.map { task -> @Sendable () -> Void in { task.cancel() } }
        return preparations + ahead.map { task -> @Sendable () -> Void in { task.cancel() } }
    }

    private static func dropping(_ entries: [Pending]) -> String {
        guard !entries.isEmpty else { return "" }
        let ranges = entries.map { "bytes \($0.fetch.range.lowerBound)..<\($0.fetch.range.upperBound) of file \($0.file.id)" }
        return ": dropped \(entries.count) download(s) sent before that received nothing since, "
            + "to be fetched anew (\(ranges.joined(separator: ", ")))"
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
