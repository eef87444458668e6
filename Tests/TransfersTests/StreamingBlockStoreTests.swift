import BoxAPI
import Foundation
import Logging
import Synchronization
import Testing
@testable import Transfers

/// A gate a streaming fetcher waits at until the test opens it.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let proceed = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if proceed { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }
}

/// The store with a streaming fetcher: blocks are readable as they arrive, a failure in the middle
/// of a range keeps what arrived, and a retried response that starts over changes nothing.
@Suite struct StreamingBlockStoreTests {
    let logger = Logger(label: "test")
    let blockSize: Int64 = 1 << 20

    func deliver(_ content: Data, _ range: Range<Int64>, to sink: any DownloadSink, chunk: Int = 300_000) {
        var offset = range.lowerBound
        while offset < range.upperBound {
            let end = min(range.upperBound, offset + Int64(chunk))
            content[Int(offset)..<Int(end)].withUnsafeBytes { _ = sink.receive($0, at: offset) }
            offset = end
        }
    }

    @Test func theFirstBlockOfARangeIsReadableBeforeTheRestArrives() async throws {
        let box = FakeBox(size: 4 << 20)
        let gate = Gate()
        let store = BlockStore(disk: nil, blockSize: blockSize, memoryCapacity: 16 << 20, logger: logger) {
            _, range, sink in
            deliver(box.content, range.lowerBound..<range.lowerBound + (1 << 20), to: sink)
            await gate.wait()
            deliver(box.content, range.lowerBound + (1 << 20)..<range.upperBound, to: sink)
            return range.upperBound - range.lowerBound
        }
        let file = RemoteFile(id: "1", version: "v", size: Int64(box.content.count), sha1: nil)
        store.prefetch(0..<(4 << 20), of: file)
        let first = try await store.block(0, of: file)  // would hang if it waited for the whole range
        #expect(first == box.content.subdata(in: 0..<(1 << 20)))
        gate.open()
        let last = try await store.block(3, of: file)
        #expect(last == box.content.subdata(in: (3 << 20)..<(4 << 20)))
    }

    @Test func aFailureMidRangeKeepsTheBlocksThatArrivedAndRefetchesOnlyTheRest() async throws {
        let box = FakeBox(size: 3 << 20)
        let calls = Mutex<[Range<Int64>]>([])
        struct Cut: Error {}
        let store = BlockStore(disk: nil, blockSize: blockSize, memoryCapacity: 16 << 20, logger: logger) {
            _, range, sink in
            let first = calls.withLock { $0.append(range); return $0.count == 1 }
            if first {
                deliver(box.content, range.lowerBound..<range.lowerBound + 1_500_000, to: sink)
                throw Cut()
            }
            deliver(box.content, range, to: sink)
            return range.upperBound - range.lowerBound
        }
        let file = RemoteFile(id: "1", version: "v", size: Int64(box.content.count), sha1: nil)
        store.prefetch(0..<(3 << 20), of: file)
        #expect(try await store.block(0, of: file) == box.content.subdata(in: 0..<(1 << 20)))
        for index: Int64 in [1, 2] {
            // A reader still waiting on the failed fetch gets its error; one that comes later fetches anew.
            var bytes = try? await store.block(index, of: file)
            if bytes == nil { bytes = try await store.block(index, of: file) }
            #expect(bytes == box.content.subdata(in: Int(index) << 20..<Int(index + 1) << 20))
        }
        #expect(try await store.block(0, of: file) == box.content.subdata(in: 0..<(1 << 20)))
        let later = calls.withLock { $0.dropFirst() }
        #expect(!later.isEmpty && later.allSatisfy { $0.lowerBound >= 1 << 20 }, "block 0 is never fetched again")
    }

    @Test func aResponseThatStartsOverDeliversTheSameBlocks() async throws {
        let box = FakeBox(size: (2 << 20) + 5)
        let store = BlockStore(disk: nil, blockSize: blockSize, memoryCapacity: 16 << 20, logger: logger) {
            _, range, sink in
            deliver(box.content, range.lowerBound..<range.lowerBound + 1_200_000, to: sink, chunk: 100_000)
            deliver(box.content, range, to: sink, chunk: 70_000)  // the retry starts again at the range's start
            return range.upperBound - range.lowerBound
        }
        let file = RemoteFile(id: "1", version: "v", size: Int64(box.content.count), sha1: nil)
        let reader = FileReader(file: file, store: store, logger: logger)
        let whole = try await reader.read(offset: 0, length: box.content.count)
        #expect(whole == box.content)
    }

    @Test func aShortAnswerFailsTheMissingBlocks() async throws {
        let box = FakeBox(size: 2 << 20)
        let store = BlockStore(disk: nil, blockSize: blockSize, memoryCapacity: 16 << 20, logger: logger) {
            _, range, sink in
            // Box has fewer bytes than the file's size says: everything past 1 MiB + 10 is missing.
            let end = min(range.upperBound, 1_048_576 + 10)
            deliver(box.content, range.lowerBound..<end, to: sink)
            return end - range.lowerBound
        }
        let file = RemoteFile(id: "1", version: "v", size: Int64(box.content.count), sha1: nil)
        store.prefetch(0..<(2 << 20), of: file)
        #expect(try await store.block(0, of: file) == box.content.subdata(in: 0..<(1 << 20)))
        await #expect(throws: TransferError.self) { try await store.block(1, of: file) }
    }
}

/// Ranges of every size, streamed in small pieces: tiny files (whose bytes a `Data` copies at once),
/// ranges just under and over the streaming threshold, and multi-block ranges with a short tail.
@Suite struct StreamingSizesTests {
    @Test(arguments: [1, 14, 15, 4096, RangeFetch.minimumStreamedSize - 1, RangeFetch.minimumStreamedSize,
                      (1 << 20) + 7, (3 << 20) - 1])
    func everySizeArrivesIntact(size: Int) async throws {
        let box = FakeBox(size: size)
        let logger = Logger(label: "test")
        let store = BlockStore(disk: nil, blockSize: 1 << 20, memoryCapacity: 16 << 20, logger: logger) {
            _, range, sink in
            var offset = range.lowerBound
            while offset < range.upperBound {
                let end = min(range.upperBound, offset + 5_000)
                box.content[Int(offset)..<Int(end)].withUnsafeBytes { _ = sink.receive($0, at: offset) }
                offset = end
            }
            return range.upperBound - range.lowerBound
        }
        let file = RemoteFile(id: "s", version: "v", size: Int64(size), sha1: nil)
        let reader = FileReader(file: file, store: store, logger: Logger(label: "test"))
        let whole = try await reader.read(offset: 0, length: size)
        #expect(whole == box.content)
    }
}
