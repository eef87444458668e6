import BoxAPI
import Crypto
import Foundation
import Synchronization

/// Small files fetched whole ahead of their first read, for a walk in listing order (`grep -r`, `cp -r` out, `tar c`;
/// the file system names the files, `SmallFilesAhead`).
///
/// Why: over a network of 50 ms round trips a small file costs its reader two round trips (the content call, then
/// the download) whatever its size, and a walker reads one file at a time: 500 files of 4 KiB took 41 s where
/// the bytes take milliseconds. Fetching the next few files while the current one is read puts several on the
/// wire at once, and the reader finds each in memory.
///
/// The rules that keep it harmless:
/// - Small is one block (`isSmall`): one request brings the whole file, its SHA-1 can be checked before any reader
///   sees a byte, and it takes one memory entry. Larger files are bandwidth, not round trips, and their reader's own
///   read-ahead takes over after the first block (the file system learns only their location ahead).
/// - Bytes ahead count against read-ahead's budget (`aheadBudget`) like any block fetched and not read yet: no fetch
///   ahead starts without room, so memory never evicts a block a reader still needs for one.
/// - The fetch is background work under Box's rate limits (`CallPriority.background`): a read a user waits on takes
///   the next token first, and a reader that finds its file's fetch ahead still waiting for a token fetches it itself.
/// - Nothing fetched ahead reaches a reader unchecked: the bytes go to memory (and the disk cache) only once whole and
///   matching Box's SHA-1 for the version asked for. A reader that opens the file meanwhile waits for that fetch
///   instead of sending a second one (`join`); if it failed (an error, a cut, wrong bytes) the reader fetches the
///   block itself, as if nothing had been fetched ahead.
/// - A block fetched ahead and not read within `aheadUnreadLifetime`, or whose walk went elsewhere (`cancelAhead`),
///   counts as read: it leaves memory first and stops holding read-ahead's budget (the disk cache keeps it).
extension BlockStore {
    /// A small file's whole content on its way ahead of its first read.
    struct AheadFetch {
        let sink: AheadSink
        /// Answers the checked bytes (nil when the fetch failed or was cancelled).
        let task: Task<Data?, Never>
        /// Bytes counted in `inFlightBytes` until the fetch ends or is cancelled.
        let bytes: Int
    }

    /// How long a block fetched ahead waits in memory for its reader before it counts as read: a walk that stopped
    /// must not hold read-ahead's budget. A walk reaches the files it fetched ahead within a second or two.
    static let aheadUnreadLifetime: Duration = .seconds(10)

    /// Whether `file` is small enough to be fetched whole ahead: not empty, and at most one block.
    public func isSmall(_ file: RemoteFile) -> Bool { file.size > 0 && file.size <= blockSize }

    /// Small files being fetched ahead (tests).
    var aheadCount: Int { state.withLock { $0.ahead.count } }

    /// Starts fetching the whole content of the small `file` in the background, for a reader expected to open it soon.
    /// Returns at once: whether the fetch started. Not when the file is not small, has no SHA-1 to check it against,
    /// is in memory, in the disk cache or being fetched already, while downloads stall, or when read-ahead's budget
    /// has no room for it (the caller may then learn its location only, `prepare`).
    @discardableResult
    public func fetchAhead(_ file: RemoteFile) -> Bool {
        guard isSmall(file), let expected = file.sha1?.lowercased(), !expected.isEmpty,
            writer?.queued(fileID: file.id, version: file.version, block: 0) == nil,
            disk?.has(fileID: file.id, version: file.version, block: 0) != true
        else { return false }
        let key = MemoryBlocks.Key(fileID: file.id, version: file.version, index: 0)
        let version = FileVersion(file)
        let size = Int(file.size)
        let sink = AheadSink(size: size)
        let started = state.withLock { state -> Bool in
            guard state.ahead[version] == nil, state.inFlight[key] == nil, !state.memory.contains(key),
                state.stalledSince == nil, aheadBudget - state.memory.unreadBytes - state.inFlightBytes >= size
            else { return false }
            state.inFlightBytes += size
            // Registered under the lock that `finishAhead` takes first: the task cannot end before it is registered.
            let task = Task { [weak self] () -> Data? in
                let data = await self?.fetchWhole(file, into: sink, expected: expected)
                self?.finishAhead(file, sink: sink, data: data)
                return data
            }
            state.ahead[version] = AheadFetch(sink: sink, task: task, bytes: size)
            return true
        }
        // A reader waits for a fetch ahead (`join`): never longer than a stalled fetch of its own would make it.
        if started, let stallTimeout {
            Task { [weak self] in
                try? await Task.sleep(for: stallTimeout)
                self?.cancelAhead(version, ifStill: sink)
            }
        }
        return started
    }

    /// The walk that asked for `file` ahead went elsewhere, or stopped: its fetch is cancelled if it is still under
    /// way, and its block, if it arrived and was never read, counts as read (first to leave memory).
    public func cancelAhead(_ file: RemoteFile) {
        let taken = state.withLock { state -> AheadFetch? in
            if let taken = Self.takeAhead(FileVersion(file), from: &state) { return taken }
            state.memory.markRead(fileID: file.id, version: file.version, from: 0)
            return nil
        }
        taken?.task.cancel()
    }

    /// A reader of `file` found its fetch ahead under way: it waits for it and takes its checked bytes (nil when it
    /// failed: the reader then fetches the block itself). Not while that fetch has received nothing and calls wait for Box's
    /// rate limit: it may be waiting behind foreground calls, and a read a user waits on is foreground, so it is
    /// cancelled and the reader fetches the block itself.
    func join(_ ahead: AheadFetch, of file: RemoteFile) async -> Data? {
        if !ahead.sink.hasStarted, let pacer, !pacer.waiting.isEmpty {
            cancelAhead(FileVersion(file), ifStill: ahead.sink)
            return nil
        }
        return await ahead.task.value
    }

    /// Takes the fetch ahead of `version` out of the store (a reader then fetches for itself) and releases its bytes
    /// from the budget. Once per fetch: nil when it ended or was taken already.
    static func takeAhead(_ version: FileVersion, from state: inout State) -> AheadFetch? {
        guard let entry = state.ahead.removeValue(forKey: version) else { return nil }
        state.inFlightBytes -= entry.bytes
        return entry
    }

    private func cancelAhead(_ version: FileVersion, ifStill sink: AheadSink) {
        let taken = state.withLock { state -> AheadFetch? in
            guard state.ahead[version]?.sink === sink else { return nil }
            return Self.takeAhead(version, from: &state)
        }
        taken?.task.cancel()
    }

    /// The whole content of `file` as one request (background priority), if it arrived whole and matches Box's SHA-1;
    /// nil otherwise (the reader then fetches it as usual, and the error is only logged at debug level).
    private func fetchWhole(_ file: RemoteFile, into sink: AheadSink, expected: String) async -> Data? {
        do {
            // Its location is being learnt ahead already: the fetch then needs no API call of its own.
            if let preparation = state.withLock({ $0.preparing[file] }) { await preparation.value }
            try await CallPriority.background {
                switch source {
                case .data(let fetcher): sink.take(try await fetcher(file.id, 0..<file.size))
                case .stream(let streamer): _ = try await streamer(file, 0..<file.size, sink)
                }
            }
            try Task.checkCancellation()
        } catch {
            if !(error is CancellationError) {
                logger.debug("could not fetch file \(file.id) ahead of its read: \(error)")
            }
            return nil
        }
        guard let data = sink.whole else {
            logger.debug("file \(file.id) fetched ahead came short; its read fetches it")
            return nil
        }
        let actual = Insecure.SHA1.hash(data: data).map { String(format: "%02x", $0) }.joined()
        guard actual == expected else {
            logger.warning("file \(file.id) fetched ahead does not match Box's SHA-1 (\(actual), expected \(expected)); not kept, its read fetches it")
            return nil
        }
        return data
    }

    /// A fetch ahead ended: its checked bytes go to memory as a block nobody has read yet (unless it was cancelled
    /// meanwhile) and to the disk cache, and its bytes leave the in-flight count.
    private func finishAhead(_ file: RemoteFile, sink: AheadSink, data: Data?) {
        let version = FileVersion(file)
        let key = MemoryBlocks.Key(fileID: file.id, version: file.version, index: 0)
        // Queued for the disk before the fetch leaves `ahead`: a reader that misses the block in memory finds it queued.
        // Checked bytes are kept on disk even when the walk went elsewhere: they cost nothing more.
        if let data { writer?.write([(index: 0, data: data)], of: file) }
        let kept = state.withLock { state -> Bool in
            guard state.ahead[version]?.sink === sink, Self.takeAhead(version, from: &state) != nil, let data else {
                return false
            }
            if !state.memory.contains(key) { state.memory.put(key, data) }
            state.verified.remove(version)
            state.arrivals.record(version)
            return true
        }
        guard kept else { return }
        Task { [weak self] in
            try? await Task.sleep(for: Self.aheadUnreadLifetime)
            self?.state.withLock { $0.memory.markRead(fileID: file.id, version: file.version, from: 0) }
        }
    }
}

/// Collects a small file's bytes as they arrive (on the HTTP client's driver thread: copies and returns). A retried
/// request delivers the same offsets again, from the start.
final class AheadSink: DownloadSink {
    let size: Int
    private let buffer: Mutex<(data: Data, next: Int)>

    init(size: Int) {
        self.size = size
        self.buffer = Mutex((Data(count: size), 0))
    }

    func receive(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> Bool {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return true }
        return buffer.withLock { buffer in
            let start = Int(offset)
            guard start >= 0, start <= buffer.next, start + bytes.count <= size else { return false }
            buffer.data.withUnsafeMutableBytes { target in
                target.baseAddress!.advanced(by: start).copyMemory(from: source, byteCount: bytes.count)
            }
            buffer.next = max(buffer.next, start + bytes.count)
            return true
        }
    }

    /// The bytes of a fetch that returned them whole (`RangeFetcher`).
    func take(_ data: Data) {
        guard data.count == size else { return }
        buffer.withLock { $0 = (Data(data), size) }
    }

    /// Whether any byte arrived.
    var hasStarted: Bool { buffer.withLock { $0.next > 0 } }

    /// The whole file, once every byte arrived.
    var whole: Data? { buffer.withLock { $0.next == size ? $0.data : nil } }
}
