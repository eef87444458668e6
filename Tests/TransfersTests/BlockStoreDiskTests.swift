import BlockCache
import Foundation
import Logging
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
}
