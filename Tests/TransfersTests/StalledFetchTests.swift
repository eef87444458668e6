import BoxAPI
import Foundation
import Logging
import Synchronization
import Testing
@testable import Transfers

/// Fetches a stalled server holds are dropped, not waited for: with the fetch declared stalled go the ones sent
/// before it that received nothing either, their read-ahead budget is released once, a fetch whose bytes still
/// arrive stays, and once a fetch sent after the stall receives bytes the silent ones sent before it are fetched
/// anew (docs/SEMANTICS.md "A server that hangs").
@Suite struct StalledFetchTests {
    let logger = Logger(label: "test")
    let blockSize: Int64 = 1 << 20

    func makeStore(stallTimeout: Duration, _ streamer: @escaping RangeStreamer) -> BlockStore {
        BlockStore(disk: nil, blockSize: blockSize, memoryCapacity: 16 << 20, logger: logger, source: .stream(streamer),
                   pool: .shared, stallTimeout: stallTimeout, preparer: nil)
    }

    static func deliver(_ content: Data, _ range: Range<Int64>, to sink: any DownloadSink, chunk: Int = 256 << 10) {
        var offset = range.lowerBound
        while offset < range.upperBound {
            let end = min(range.upperBound, offset + Int64(chunk))
            content[Int(offset)..<Int(end)].withUnsafeBytes { _ = sink.receive($0, at: offset) }
            offset = end
        }
    }

    /// Bytes counted in flight, fetches in flight, blocks registered in flight.
    func counts(_ store: BlockStore) -> [Int] {
        let counts = store.inFlightCounts
        return [counts.bytes, counts.fetches, counts.blocks]
    }

    static func file(_ id: String) -> RemoteFile { RemoteFile(id: id, version: "v", size: 1 << 20, sha1: nil) }

    /// `counts(store)` once it is all zeros, or after a second (a fetch hands a block to its readers just before
    /// it accounts for it).
    func settledCounts(_ store: BlockStore) async throws -> [Int] {
        for _ in 0..<100 where counts(store) != [0, 0, 0] { try await Task.sleep(for: .milliseconds(10)) }
        return counts(store)
    }

    /// Counts the calls of each file id.
    final class Calls: Sendable {
        private let counts = Mutex<[String: Int]>([:])
        func next(_ id: String) -> Int { counts.withLock { $0[id, default: 0] += 1; return $0[id]! } }
        func count(_ id: String) -> Int { counts.withLock { $0[id] ?? 0 } }
    }

    @Test func aStalledFetchGoesWithTheSilentOnesSentBeforeItAndTheirBudgetIsReleasedOnce() async throws {
        let box = FakeBox(size: 2 << 20)
        let calls = Calls()
        let store = makeStore(stallTimeout: .seconds(1)) { file, range, sink in
            if calls.next(file.id) == 1 {
                // The stalled server: nothing arrives until the transfer is cancelled; then the first file's bytes
                // come anyway (a transfer that delivers a last piece as it is torn down): they must not count twice.
                try? await Task.sleep(for: .seconds(30))
                guard file.id == "1" else { throw CancellationError() }
                Self.deliver(box.content, range, to: sink)
                return Int64(range.count)
            }
            Self.deliver(box.content, range, to: sink)
            return Int64(range.count)
        }
        let first = RemoteFile(id: "1", version: "v", size: 2 << 20, sha1: nil)
        let second = RemoteFile(id: "2", version: "v", size: 2 << 20, sha1: nil)
        store.prefetch(0..<(2 << 20), of: first, withinBudget: true)
        try await Task.sleep(for: .milliseconds(700))
        store.prefetch(0..<(2 << 20), of: second, withinBudget: true)
        #expect(counts(store) == [4 << 20, 2, 4])

        // The first fetch is declared stalled after stall_timeout (1 s); the second, sent 0.7 s later and silent
        // since, goes with it: nothing is in flight any more, and its budget is free.
        await #expect(throws: TransferError.self) { try await store.block(0, of: first) }
        #expect(counts(store) == [0, 0, 0])
        // A read of it starts a fresh fetch at once.
        #expect(try await store.block(1, of: second) == box.content.subdata(in: 1 << 20..<2 << 20))
        #expect(calls.count("2") == 2)
        // The dropped transfers' late bytes and ends change no count.
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await settledCounts(store) == [0, 0, 0])
        #expect(try await store.block(0, of: second) == box.content.subdata(in: 0..<1 << 20))
        #expect(try await settledCounts(store) == [0, 0, 0])
    }

    @Test func aFetchWhoseBytesStillArriveIsNotDroppedWhenAnotherStalls() async throws {
        let box = FakeBox(size: 2 << 20)
        let calls = Calls()
        let store = makeStore(stallTimeout: .seconds(1)) { file, range, sink in
            _ = calls.next(file.id)
            if file.id == "stalled" {
                try await Task.sleep(for: .seconds(30))
                return 0
            }
            // Slow: 64 KiB every 60 ms, 2 s for the range.
            var offset = range.lowerBound
            while offset < range.upperBound {
                try await Task.sleep(for: .milliseconds(60))
                Self.deliver(box.content, offset..<min(range.upperBound, offset + (64 << 10)), to: sink)
                offset += 64 << 10
            }
            return Int64(range.count)
        }
        let stalled = RemoteFile(id: "stalled", version: "v", size: 2 << 20, sha1: nil)
        let slow = RemoteFile(id: "slow", version: "v", size: 2 << 20, sha1: nil)
        store.prefetch(0..<(1 << 20), of: stalled)
        store.prefetch(0..<(2 << 20), of: slow)
        await #expect(throws: TransferError.self) { try await store.block(0, of: stalled) }
        #expect(try await store.block(1, of: slow) == box.content.subdata(in: 1 << 20..<2 << 20))
        #expect(calls.count("slow") == 1, "the slow fetch went on: never dropped, never sent again")
        #expect(try await settledCounts(store) == [0, 0, 0])
    }

    @Test func onceAFetchSentAfterAStallReceivesBytesTheSilentOnesSentBeforeItAreFetchedAnew() async throws {
        let box = FakeBox(size: 1 << 20)
        let calls = Calls()
        let recovered = Mutex(false)
        let store = makeStore(stallTimeout: .seconds(4)) { file, range, sink in
            _ = calls.next(file.id)
            guard recovered.withLock({ $0 }) else {
                try await Task.sleep(for: .seconds(30))
                return 0
            }
            Self.deliver(box.content, range, to: sink)
            return Int64(range.count)
        }
        store.prefetch(0..<(1 << 20), of: Self.file("first"))
        await #expect(throws: TransferError.self) { try await store.block(0, of: Self.file("first")) }
        // Sent while downloads stall: a probe given up after 2 s (not stall_timeout) unless downloads move before.
        let reader = Task { try await store.block(0, of: Self.file("sent into the stall")) }
        while calls.count("sent into the stall") == 0 { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(300))
        recovered.withLock { $0 = true }
        // A fetch sent now receives bytes: the one sent into the stall is dropped, and its reader fetches anew.
        #expect(try await store.block(0, of: Self.file("after")) == box.content)
        #expect(try await reader.value == box.content)
        #expect(calls.count("sent into the stall") == 2)
        #expect(try await settledCounts(store) == [0, 0, 0])
    }

    @Test func whenBoxAnswersAgainASilentFetchIsFetchedAnewAtOnce() async throws {
        let box = FakeBox(size: 1 << 20)
        let calls = Calls()
        let store = makeStore(stallTimeout: .seconds(8)) { file, range, sink in
            if calls.next(file.id) == 1 {
                try await Task.sleep(for: .seconds(30))  // sent while Box was out of reach: never answered
                return 0
            }
            Self.deliver(box.content, range, to: sink)
            return Int64(range.count)
        }
        let reader = Task { try await store.block(0, of: Self.file("1")) }
        // The fetch is on the wire (on a loaded machine the reader's task may start late), then silent for more than
        // `quiet` (1 s).
        while calls.count("1") == 0 { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(1300))
        store.boxAnswersAgain()
        // Fetched anew (a probe, answered at once), not after the silent fetch's stall (8 s).
        #expect(try await reader.value == box.content)
        #expect(calls.count("1") == 2)
        #expect(try await settledCounts(store) == [0, 0, 0])
    }
}
