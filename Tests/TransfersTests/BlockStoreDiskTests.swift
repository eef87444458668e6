import BlockCache
import Foundation
import Logging
import Synchronization
import Testing
@testable import Transfers

/// The store with a disk cache: fetched blocks are written in the background and then served from
/// disk by a store that has nothing in memory.
@Suite struct BlockStoreDiskTests {
    let logger = Logger(label: "test")

    @Test func fetchedBlocksReachTheDiskAndServeAFreshStore() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("blockstore-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let box = FakeBox(size: (3 << 20) + 1000, delay: .milliseconds(1))
        let remote = RemoteFile(id: "7", version: "v", size: Int64(box.content.count), sha1: nil)
        do {
            let disk = try BlockCache(directory: directory, capacity: 64 << 20)
            let store = BlockStore(disk: disk, blockSize: 1 << 20, memoryCapacity: 16 << 20, logger: logger,
                                   fetch: box.fetcher)
            let whole = try await FileReader(file: remote, store: store, logger: logger)
                .read(offset: 0, length: box.content.count)
            #expect(whole == box.content)
            await store.flushDiskWrites()
            #expect(disk.blockCount == 4)
        }
        let requests = box.requests.withLock { $0.count }
        let disk = try BlockCache(directory: directory, capacity: 64 << 20)
        let fresh = BlockStore(disk: disk, blockSize: 1 << 20, memoryCapacity: 16 << 20, logger: logger,
                               fetch: box.fetcher)
        let again = try await FileReader(file: remote, store: fresh, logger: logger)
            .read(offset: 1 << 20, length: (2 << 20) + 1000)
        #expect(again == box.content.subdata(in: (1 << 20)..<box.content.count))
        #expect(box.requests.withLock { $0.count } == requests, "served from disk")
    }

    /// Readers that take each block at once, with memory for four blocks: a block read leaves memory as soon as
    /// it arrives, and readers behind find it queued for the disk or on it. (A block left the in-flight table
    /// before it was queued for the disk: taken and evicted in between, it was nowhere, and a read-ahead that
    /// looked then fetched it again.)
    @Test func readersBehindABlockTakenAtOnceFindItOnTheWayToDisk() async throws {
        for _ in 0..<40 {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("blockstore-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let box = FakeBox(size: 64 << 12, delay: .zero)
            let remote = RemoteFile(id: "7", version: "v", size: Int64(box.content.count), sha1: nil)
            let disk = try BlockCache(directory: directory, capacity: 64 << 20, blockSize: 1 << 12)
            let store = BlockStore(disk: disk, blockSize: 1 << 12, memoryCapacity: 4 << 12, logger: logger, fetch: box.fetcher)
            let failures = WrongBlocks()
            let done = DispatchGroup()
            for thread in 0..<8 {
                done.enter()
                Thread {
                    for step in 0..<64 {
                        let index = Int64((step + thread) % 64)
                        store.prefetch(index << 12..<min(64, index + 3) << 12, of: remote)
                        let read = DispatchSemaphore(value: 0)
                        Task {
                            let block = try? await store.block(index, of: remote)
                            if block != box.content.subdata(in: Int(index << 12)..<Int((index + 1) << 12)) {
                                failures.list.withLock { $0.append(index) }
                            }
                            read.signal()
                        }
                        read.wait()
                    }
                    done.leave()
                }.start()
            }
            await withCheckedContinuation { finished in done.notify(queue: .global()) { finished.resume() } }
            await store.flushDiskWrites()
            #expect(failures.list.withLock { $0 }.isEmpty, "wrong bytes")
            let requests = box.requests.withLock { $0 }.sorted { $0.lowerBound < $1.lowerBound }
            for (one, next) in zip(requests, requests.dropFirst()) {
                #expect(one.upperBound <= next.lowerBound, "\(one) and \(next) overlap")
            }
        }
    }
}

/// Blocks read with the wrong bytes, from any thread.
private final class WrongBlocks: Sendable {
    let list = Mutex<[Int64]>([])
}
