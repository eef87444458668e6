import Foundation
import Logging
import Synchronization
import Testing
@testable import Transfers

/// A fetcher serving a deterministic file from memory, counting what it was asked for.
final class FakeBox: Sendable {
    let content: Data
    let requests = Mutex<[Range<Int64>]>([])
    let delay: Duration

    init(size: Int, delay: Duration = .milliseconds(20)) {
        var generator = SystemRandomNumberGenerator()
        var bytes = Data(count: size)
        bytes.withUnsafeMutableBytes { raw in
            for index in 0..<(size / 8) { raw.storeBytes(of: generator.next() as UInt64, toByteOffset: index * 8, as: UInt64.self) }
            // The tail too, never zero: a read that comes back zeroed must not pass for the right bytes.
            for index in (size / 8 * 8)..<size { raw[index] = UInt8.random(in: 1...255) }
        }
        content = bytes
        self.delay = delay
    }

    var fetcher: RangeFetcher {
        { _, range in
            self.requests.withLock { $0.append(range) }
            try await Task.sleep(for: self.delay)
            return self.content.subdata(in: Int(range.lowerBound)..<Int(range.upperBound))
        }
    }

    var bytesServed: Int64 { requests.withLock { $0.reduce(0) { $0 + Int64($1.count) } } }
}

@Suite struct BlockStoreTests {
    let logger = Logger(label: "test")

    func file(_ box: FakeBox, sha1: String? = nil) -> RemoteFile {
        RemoteFile(id: "42", version: "v1", size: Int64(box.content.count), sha1: sha1)
    }

    @Test func concurrentReadersOfTheSameBytesShareOneFetch() async throws {
        let box = FakeBox(size: 3 << 20)
        let store = BlockStore(disk: nil, blockSize: 1 << 20, memoryCapacity: 16 << 20, logger: logger, fetch: box.fetcher)
        let remote = file(box)
        let results = try await withThrowingTaskGroup(of: Data.self) { group in
            for _ in 0..<32 { group.addTask { try await FileReader(file: remote, store: store, logger: logger).read(offset: 1_500_000, length: 4096) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0 == box.content.subdata(in: 1_500_000..<1_504_096) })
        #expect(box.requests.withLock { $0 } == [1 << 20..<2 << 20], "one block fetched once for 32 readers")
    }

    @Test func aSecondReadOfTheSameBytesMakesNoRequest() async throws {
        let box = FakeBox(size: 2 << 20)
        let store = BlockStore(disk: nil, blockSize: 1 << 20, memoryCapacity: 16 << 20, logger: logger, fetch: box.fetcher)
        let reader = FileReader(file: file(box), store: store, logger: logger)
        _ = try await reader.read(offset: 10, length: 100)
        let before = box.requests.withLock { $0.count }
        let again = try await FileReader(file: file(box), store: store, logger: logger).read(offset: 10, length: 100)
        #expect(again == box.content.subdata(in: 10..<110))
        #expect(box.requests.withLock { $0.count } == before)
    }

    @Test func sequentialReadingStreamsTheWholeFileWithBoundedMemoryAndChecksIt() async throws {
        let box = FakeBox(size: 40 << 20, delay: .milliseconds(1))
        let sha1 = Insecure.SHA1.hash(data: box.content).map { String(format: "%02x", $0) }.joined()
        let store = BlockStore(disk: nil, blockSize: 1 << 20, memoryCapacity: 32 << 20, logger: logger, fetch: box.fetcher)
        let reader = FileReader(file: file(box, sha1: sha1), store: store, logger: logger)
        var copy = Data()
        var offset: Int64 = 0
        while offset < Int64(box.content.count) {
            let piece = try await reader.read(offset: offset, length: 128 << 10)
            copy.append(piece)
            offset += Int64(piece.count)
        }
        #expect(copy == box.content)
        #expect(box.bytesServed < Int64(box.content.count) + (8 << 20), "read-ahead fetches little beyond the file")
        let largest = box.requests.withLock { $0.map(\.count).max() ?? 0 }
        #expect(largest > 1 << 20, "sequential reading grew the window past one block")
    }

    @Test func aWholeReadThatDoesNotMatchBoxsSHA1IsAnErrorAndDropsTheBlocks() async throws {
        let box = FakeBox(size: 3 << 20, delay: .milliseconds(1))
        let store = BlockStore(disk: nil, blockSize: 1 << 20, memoryCapacity: 16 << 20, logger: logger, fetch: box.fetcher)
        let reader = FileReader(file: file(box, sha1: String(repeating: "0", count: 40)), store: store, logger: logger)
        _ = try await reader.read(offset: 0, length: 2 << 20)
        await #expect(throws: TransferError.self) { try await reader.read(offset: 2 << 20, length: 1 << 20) }
        let before = box.requests.withLock { $0.count }
        _ = try await FileReader(file: file(box), store: store, logger: logger).read(offset: 0, length: 10)
        #expect(box.requests.withLock { $0.count } == before + 1, "the dropped blocks are fetched again")
    }

    @Test func outOfOrderPiecesStillVerify() {
        let content = Data((0..<10_000).map { UInt8($0 % 251) })
        let sha1 = Insecure.SHA1.hash(data: content).map { String(format: "%02x", $0) }.joined()
        var verifier = WholeFileVerifier(size: 10_000, expected: sha1)
        #expect(verifier.record(content.subdata(in: 4_000..<10_000), at: 4_000) == .pending)
        #expect(verifier.record(content.subdata(in: 0..<2_000), at: 0) == .pending)
        #expect(verifier.record(content.subdata(in: 1_000..<4_500), at: 1_000) == .matched)
    }

    /// Readers asking at once for overlapping runs of blocks (the kernel's concurrent reads of one file, each
    /// with its read-ahead) never fetch a block twice: a run is checked and registered as in flight under one
    /// lock, and is cut where another reader's fetch already covers it. (Checked block by block before the run
    /// was registered, a fetch started meanwhile by another reader for blocks inside the run was overwritten
    /// and those blocks fetched twice: 2 MiB more than read, once, for 8 parallel `sha1sum`s on a mount.)
    @Test func overlappingPrefetchesAtOnceFetchNoBlockTwice() async throws {
        try await prefetchOverlappingRunsAtOnce(rounds: 200, delay: .milliseconds(2))
    }

    /// Fetches that end as soon as they start: a block arrives between a read-ahead's look at it and its claim.
    /// (The claim took a block that had just moved from in flight to memory for missing, and fetched it again.)
    @Test func prefetchesRacingFetchesThatEndAtOnceFetchNoBlockTwice() async throws {
        try await prefetchOverlappingRunsAtOnce(rounds: 300, delay: .zero)
    }

    /// 16 threads prefetch overlapping runs of one file of 64 blocks, `rounds` times; no two requests may overlap.
    func prefetchOverlappingRunsAtOnce(rounds: Int, delay: Duration) async throws {
        for round in 0..<rounds {
            let box = FakeBox(size: 64 << 12, delay: delay)
            let store = BlockStore(disk: nil, blockSize: 1 << 12, memoryCapacity: 16 << 20, logger: logger, fetch: box.fetcher)
            let remote = file(box)
            // Threads of their own, more than the cores: the system switches between them at any point.
            let done = DispatchGroup()
            for thread in 0..<16 {
                done.enter()
                Thread {
                    for reader in stride(from: thread, to: 256, by: 16) {
                        let first = Int64((reader * 37 + round) % 60), count = Int64(2 + reader % 12)
                        store.prefetch(first << 12..<min(64, first + count) << 12, of: remote)
                    }
                    done.leave()
                }.start()
            }
            await withCheckedContinuation { finished in done.notify(queue: .global()) { finished.resume() } }
            for index in 0..<Int64(64) {  // every fetch started has been asked for and has ended
                let block = try await store.block(index, of: remote)
                #expect(block == box.content.subdata(in: Int(index << 12)..<Int((index + 1) << 12)))
            }
            let requests = box.requests.withLock { $0 }.sorted { $0.lowerBound < $1.lowerBound }
            for (one, next) in zip(requests, requests.dropFirst()) {
                #expect(one.upperBound <= next.lowerBound, "\(one) and \(next) overlap")
            }
            #expect(box.bytesServed <= Int64(box.content.count))
        }
    }

    @Test func aRandomReadFetchesOnlyItsBlocks() async throws {
        let box = FakeBox(size: 64 << 20, delay: .milliseconds(1))
        let store = BlockStore(disk: nil, blockSize: 1 << 20, memoryCapacity: 16 << 20, logger: logger, fetch: box.fetcher)
        let reader = FileReader(file: file(box), store: store, logger: logger)
        let data = try await reader.read(offset: 50 << 20 + 100, length: 4096)
        #expect(data == box.content.subdata(in: (50 << 20 + 100)..<(50 << 20 + 4196)))
        #expect(box.requests.withLock { $0 } == [50 << 20..<51 << 20])
    }
}

import Crypto
