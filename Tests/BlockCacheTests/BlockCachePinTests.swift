import Foundation
import XCTest

@testable import BlockCache

/// Pinned files (`BlockCache+Pins`): never evicted, counted against a budget of their own (`pin_size`), kept
/// pinned across reopenings; unpinned, they are ordinary cache again.
final class BlockCachePinTests: XCTestCase {
    private let blockSize = 4096
    /// One block file of a one-character file id and version.
    private var fileSize: Int64 { Int64(BlockTrailer.fixedLength + 1 + 1 + blockSize) }

    private func write(_ cache: BlockCache, _ fileID: String, blocks: Range<Int>) {
        for block in blocks { cache.write(fileID: fileID, version: "v", block: block, data: blockData(block, count: blockSize)) }
    }

    func testPinnedBlocksAreNeverEvictedAndDoNotCountAgainstTheCapacity() throws {
        let directory = try TemporaryDirectory()
        let capacity = fileSize * 3
        let cache = try BlockCache(directory: directory.url, capacity: capacity, blockSize: blockSize)
        XCTAssertTrue(cache.pin(fileID: "p"))
        write(cache, "p", blocks: 0..<5)  // more than the whole ordinary capacity
        write(cache, "1", blocks: 0..<20)
        XCTAssertEqual(cache.pinnedBytes, fileSize * 5)
        XCTAssertLessThanOrEqual(cache.usedBytes, capacity, "ordinary blocks keep to cache_size")
        XCTAssertEqual(cache.usedBytes, fileSize * 3, "pinned blocks take none of it")
        for block in 0..<5 {
            XCTAssertEqual(cache.read(fileID: "p", version: "v", block: block), blockData(block, count: blockSize))
        }
        cache.giveWay(fileSize * 100)
        XCTAssertEqual(cache.pinnedBytes, fileSize * 5, "not even a write that found the disk full takes pinned blocks")
        XCTAssertTrue(cache.hasAllBlocks(fileID: "p", version: "v", size: Int64(5 * blockSize)))
    }

    func testPinningAFileMovesItsCachedBlocksOutOfTheEvictableCache() throws {
        let directory = try TemporaryDirectory()
        let cache = try BlockCache(directory: directory.url, capacity: fileSize * 4, blockSize: blockSize)
        write(cache, "p", blocks: 0..<2)
        XCTAssertEqual(cache.usedBytes, fileSize * 2)
        cache.pin(fileID: "p")
        XCTAssertEqual(cache.usedBytes, 0)
        XCTAssertEqual(cache.pinnedBytes, fileSize * 2)
        write(cache, "1", blocks: 0..<10)
        XCTAssertTrue(cache.has(fileID: "p", version: "v", block: 0) && cache.has(fileID: "p", version: "v", block: 1))
    }

    func testThePinBudgetRefusesBlocksBeyondItAndEvictsNothingForThem() throws {
        let directory = try TemporaryDirectory()
        let cache = try BlockCache(directory: directory.url, capacity: fileSize * 4, blockSize: blockSize, pinCapacity: fileSize * 2)
        write(cache, "1", blocks: 0..<4)
        cache.pin(fileID: "p")
        XCTAssertEqual(cache.pinRoom, fileSize * 2)
        write(cache, "p", blocks: 0..<3)
        XCTAssertEqual(cache.pinnedBytes, fileSize * 2)
        XCTAssertFalse(cache.has(fileID: "p", version: "v", block: 2), "past pin_size: not stored")
        XCTAssertFalse(cache.hasAllBlocks(fileID: "p", version: "v", size: Int64(3 * blockSize)))
        XCTAssertEqual(cache.pinRoom, 0)
        XCTAssertEqual(cache.usedBytes, fileSize * 4, "no ordinary block was evicted for a pinned one")
    }

    func testUnpinnedBlocksBecomeOrdinaryCacheWithinTheCapacity() throws {
        let directory = try TemporaryDirectory()
        let cache = try BlockCache(directory: directory.url, capacity: fileSize * 3, blockSize: blockSize)
        cache.pin(fileID: "p")
        write(cache, "p", blocks: 0..<5)
        write(cache, "1", blocks: 0..<3)
        XCTAssertTrue(cache.unpin(fileID: "p"))
        XCTAssertFalse(cache.isPinned(fileID: "p"))
        XCTAssertEqual(cache.pinnedBytes, 0)
        XCTAssertEqual(cache.usedBytes, fileSize * 3, "evicted down to the capacity")
        XCTAssertTrue((2..<5).allSatisfy { cache.has(fileID: "p", version: "v", block: $0) }, "as the most recently used")
        write(cache, "2", blocks: 0..<3)
        XCTAssertFalse((0..<5).contains { cache.has(fileID: "p", version: "v", block: $0) }, "then evicted like any block")
        XCTAssertFalse(cache.unpin(fileID: "p"), "not pinned any more")
    }

    func testPinsSurviveReopeningEvenWithASmallerCapacity() throws {
        let directory = try TemporaryDirectory()
        do {
            let cache = try BlockCache(directory: directory.url, capacity: fileSize * 8, blockSize: blockSize)
            cache.pin(fileID: "p")
            write(cache, "p", blocks: 0..<4)
            write(cache, "1", blocks: 0..<4)
        }
        let cache = try BlockCache(directory: directory.url, capacity: fileSize, blockSize: blockSize)
        XCTAssertTrue(cache.isPinned(fileID: "p"))
        XCTAssertEqual(cache.pinnedFileIDs, ["p"])
        XCTAssertEqual(cache.pinnedBytes, fileSize * 4)
        XCTAssertEqual(cache.usedBytes, fileSize, "ordinary blocks were evicted to the new capacity, pinned ones not")
        for block in 0..<4 {
            XCTAssertEqual(cache.read(fileID: "p", version: "v", block: block), blockData(block, count: blockSize))
        }
    }

    func testANewVersionOfAPinnedFileReplacesTheOldOneInThePinnedClass() throws {
        let directory = try TemporaryDirectory()
        let cache = try BlockCache(directory: directory.url, capacity: fileSize * 2, blockSize: blockSize)
        cache.pin(fileID: "p")
        write(cache, "p", blocks: 0..<3)
        cache.write(fileID: "p", version: "w", block: 0, data: blockData(9, count: blockSize))
        XCTAssertEqual(cache.pinnedBytes, fileSize, "the old version's blocks went")
        XCTAssertEqual(cache.read(fileID: "p", version: "w", block: 0), blockData(9, count: blockSize))
        XCTAssertTrue(cache.isPinned(fileID: "p"))
    }

    func testWithoutABudgetPinRoomIsTheDisksFreeSpaceLessTheMinimumPlusWhatOrdinaryBlocksHold() throws {
        let directory = try TemporaryDirectory()
        let cache = try BlockCache(directory: directory.url, capacity: fileSize * 4, blockSize: blockSize, minimumFree: 1 << 20)
        write(cache, "1", blocks: 0..<2)
        let available = try XCTUnwrap(BlockCache.availableBytes(at: directory.url.path))
        let room = cache.pinRoom
        // The disk moves under other processes: within a few MiB.
        XCTAssertLessThan(abs(room - (available - (1 << 20) + fileSize * 2)), 8 << 20)
    }
}
