import Foundation
import XCTest

@testable import BlockCache

/// Least-recently-used eviction within the capacity, headers included.
final class BlockCacheEvictionTests: XCTestCase {
    private let blockSize = 4096
    private var fileSize: Int64 { Int64(BlockTrailer.fixedLength + 1 + 1 + blockSize) }

    func testEvictionKeepsUsedBytesWithinCapacity() throws {
        let directory = try TemporaryDirectory()
        let capacity = fileSize * 5 + 100
        let cache = try BlockCache(directory: directory.url, capacity: capacity, blockSize: blockSize)
        for block in 0..<50 {
            cache.write(fileID: "1", version: "v", block: block, data: blockData(block, count: blockSize))
            XCTAssertLessThanOrEqual(cache.usedBytes, capacity)
        }
        XCTAssertEqual(cache.blockCount, 5)
        XCTAssertEqual(cache.usedBytes, fileSize * 5)
        let onDisk = try blockFiles(in: directory.url).reduce(Int64(0)) {
            $0 + Int64(try $1.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0)
        }
        XCTAssertEqual(onDisk, cache.usedBytes, "the accounting matches the files")
        XCTAssertTrue((45..<50).allSatisfy { cache.has(fileID: "1", version: "v", block: $0) }, "the newest stay")
    }

    func testTheLeastRecentlyReadBlockIsEvictedFirst() throws {
        let directory = try TemporaryDirectory()
        let cache = try BlockCache(directory: directory.url, capacity: fileSize * 3, blockSize: blockSize)
        for block in 0..<3 {
            cache.write(fileID: "1", version: "v", block: block, data: blockData(block, count: blockSize))
        }
        XCTAssertNotNil(cache.read(fileID: "1", version: "v", block: 0))  // 1 is now the least recently used
        XCTAssertNotNil(cache.read(fileID: "1", version: "v", block: 2))
        cache.write(fileID: "1", version: "v", block: 3, data: blockData(3, count: blockSize))
        XCTAssertFalse(cache.has(fileID: "1", version: "v", block: 1))
        XCTAssertTrue(cache.has(fileID: "1", version: "v", block: 0))
        cache.write(fileID: "1", version: "v", block: 4, data: blockData(4, count: blockSize))
        XCTAssertFalse(cache.has(fileID: "1", version: "v", block: 0), "then the next least recently used")
        XCTAssertEqual([2, 3, 4].map { cache.read(fileID: "1", version: "v", block: $0) },
                       [2, 3, 4].map { blockData($0, count: blockSize) })
    }

    func testRewritingABlockReplacesItsBytes() throws {
        let directory = try TemporaryDirectory()
        let cache = try BlockCache(directory: directory.url, capacity: fileSize * 2, blockSize: blockSize)
        cache.write(fileID: "1", version: "v", block: 0, data: blockData(1, count: blockSize))
        cache.write(fileID: "1", version: "v", block: 0, data: blockData(2, count: 10))
        XCTAssertEqual(cache.read(fileID: "1", version: "v", block: 0), blockData(2, count: 10))
        XCTAssertEqual(cache.usedBytes, Int64(BlockTrailer.fixedLength + 2 + 10))
    }

    func testAShrunkCapacityEvictsAtStart() throws {
        let directory = try TemporaryDirectory()
        do {
            let cache = try BlockCache(directory: directory.url, capacity: fileSize * 10, blockSize: blockSize)
            for block in 0..<10 {
                cache.write(fileID: "1", version: "v", block: block, data: blockData(block, count: blockSize))
            }
        }
        let smaller = try BlockCache(directory: directory.url, capacity: fileSize * 4, blockSize: blockSize)
        XCTAssertEqual(smaller.blockCount, 4)
        XCTAssertLessThanOrEqual(smaller.usedBytes, fileSize * 4)
        XCTAssertEqual(try blockFiles(in: directory.url).count, 4)
    }
}

/// `cache_size` is disk space: a full cache of full blocks stays within it as `du` counts it (whole file-system
/// blocks), not only by the files' lengths.
final class BlockCacheDiskSpaceTests: XCTestCase {
    func testAFullCacheOfFullBlocksStaysWithinTheDiskSpaceItWasGiven() throws {
        let directory = try TemporaryDirectory()
        // Room, by the files' lengths, for exactly 16 blocks of file "1" version "v".
        let blockSize = 64 << 10, diskSpace = 16 * Int64(BlockTrailer.fixedLength + 2 + blockSize)
        let cache = try BlockCache(
            directory: directory.url, capacity: BlockCache.capacity(withinDiskSpace: diskSpace, blockSize: blockSize),
            blockSize: blockSize)
        for block in 0..<40 {
            cache.write(fileID: "1", version: "v", block: block, data: blockData(block, count: blockSize))
        }
        let allocated = try blockFiles(in: directory.url).reduce(Int64(0)) { sum, url in
            var info = stat()
            XCTAssertEqual(stat(url.path, &info), 0)
            return sum + Int64(info.st_blocks) * 512
        }
        XCTAssertGreaterThan(allocated, diskSpace - Int64(blockSize) * 2, "the cache is full")
        XCTAssertLessThanOrEqual(allocated, diskSpace)
    }
}
