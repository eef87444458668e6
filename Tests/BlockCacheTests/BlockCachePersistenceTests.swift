import Foundation
import XCTest

@testable import BlockCache

/// What a new cache on the same directory finds: blocks, sizes, LRU order, and only its own layout.
final class BlockCachePersistenceTests: XCTestCase {
    func testAReopenedCacheHasTheSameBlocksAndRoughlyTheSameLRUOrder() throws {
        let directory = try TemporaryDirectory()
        let blockSize = 4096
        var usedBefore: Int64 = 0
        do {
            let cache = try BlockCache(directory: directory.url, capacity: 1 << 20, blockSize: blockSize)
            for block in 0..<4 {
                cache.write(fileID: "5", version: "v", block: block, data: blockData(block, count: blockSize - block))
            }
            // Coarse file timestamps: space the reads out so their order shows in the mtimes.
            for block in [2, 0, 3, 1] {
                Thread.sleep(forTimeInterval: 0.02)
                XCTAssertNotNil(cache.read(fileID: "5", version: "v", block: block))
            }
            usedBefore = cache.usedBytes
        }
        let reopened = try BlockCache(directory: directory.url, capacity: 1 << 20, blockSize: blockSize)
        XCTAssertEqual(reopened.usedBytes, usedBefore)
        XCTAssertEqual(reopened.keysOldestFirst.map(\.block), [2, 0, 3, 1])
        for block in 0..<4 {
            let expected = blockData(block, count: blockSize - block)
            XCTAssertEqual(reopened.read(fileID: "5", version: "v", block: block), expected)
        }
    }

    func testADirectoryWithAnOldLayoutVersionIsCleared() throws {
        let directory = try TemporaryDirectory()
        let old = directory.url.appendingPathComponent("boxfs-layout-0/blocks/00", isDirectory: true)
        try FileManager.default.createDirectory(at: old, withIntermediateDirectories: true)
        try blockData(1, count: 1000).write(to: old.appendingPathComponent("1~v~0"))
        let cache = try BlockCache(directory: directory.url, capacity: 1 << 20, blockSize: 4096)
        let oldFolder = directory.url.appendingPathComponent("boxfs-layout-0")
        XCTAssertFalse(FileManager.default.fileExists(atPath: oldFolder.path))
        XCTAssertEqual(cache.usedBytes, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: cache.layout.markerPath))
    }

    func testAnotherBlockSizeStartsEmpty() throws {
        let directory = try TemporaryDirectory()
        do {
            let cache = try BlockCache(directory: directory.url, capacity: 1 << 20, blockSize: 4096)
            cache.write(fileID: "1", version: "v", block: 1, data: blockData(1, count: 4096))
        }
        let cache = try BlockCache(directory: directory.url, capacity: 1 << 20, blockSize: 8192)
        XCTAssertEqual(cache.blockCount, 0)
        XCTAssertNil(cache.read(fileID: "1", version: "v", block: 1), "block 1 means other bytes now")
        XCTAssertEqual(try blockFiles(in: directory.url).count, 0)
    }

    func testTheDirectoryIsPrivateAndUsedByOneCacheAtATime() throws {
        let parent = try TemporaryDirectory()
        let directory = parent.url.appendingPathComponent("deeper/cache")
        let cache = try BlockCache(directory: directory, capacity: 1 << 20, blockSize: 4096)
        let mode = try FileManager.default.attributesOfItem(atPath: directory.path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o700)
        XCTAssertThrowsError(try BlockCache(directory: directory, capacity: 1 << 20, blockSize: 4096)) {
            XCTAssertEqual($0 as? BlockCacheError, .directoryInUse(path: directory.path))
        }
        withExtendedLifetime(cache) {}
    }

    func testStartUpWithTwentyThousandBlocksIsQuick() throws {
        let directory = try TemporaryDirectory()
        let count = 20_000
        do {
            let cache = try BlockCache(directory: directory.url, capacity: 1 << 30, blockSize: 16)
            for block in 0..<count {
                cache.write(fileID: String(block % 500), version: "v", block: block, data: blockData(block, count: 16))
            }
            XCTAssertEqual(cache.blockCount, count)
        }
        let start = ContinuousClock.now
        let reopened = try BlockCache(directory: directory.url, capacity: 1 << 30, blockSize: 16)
        let elapsed = ContinuousClock.now - start
        print("re-open with \(count) blocks took \(elapsed)")
        XCTAssertEqual(reopened.blockCount, count)
        XCTAssertLessThan(elapsed, .seconds(5), "one readdir per folder and one stat per block")
        XCTAssertEqual(reopened.read(fileID: "7", version: "v", block: 507), blockData(507, count: 16))
    }
}
