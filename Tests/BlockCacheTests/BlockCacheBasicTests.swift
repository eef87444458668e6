import Foundation
import XCTest

@testable import BlockCache

/// Storing and finding blocks by (file id, version, block index).
final class BlockCacheBasicTests: XCTestCase {
    func testRoundTripOfFullAndShortBlocks() throws {
        let directory = try TemporaryDirectory()
        let cache = try BlockCache(directory: directory.url, capacity: 64 << 20, blockSize: 1 << 20)
        let full = blockData(1, count: 1 << 20), short = blockData(2, count: 12_345)
        cache.write(fileID: "123", version: "456", block: 0, data: full)
        cache.write(fileID: "123", version: "456", block: 7, data: short)
        XCTAssertEqual(cache.read(fileID: "123", version: "456", block: 0), full)
        XCTAssertEqual(cache.read(fileID: "123", version: "456", block: 7), short)
        XCTAssertTrue(cache.has(fileID: "123", version: "456", block: 7))
        XCTAssertFalse(cache.has(fileID: "123", version: "456", block: 1), "sparse: block 1 was never written")
        XCTAssertNil(cache.read(fileID: "123", version: "456", block: 1))
        XCTAssertEqual(cache.blockCount, 2)
        let headers = Int64(2 * (BlockTrailer.fixedLength + 3 + 3))
        XCTAssertEqual(cache.usedBytes, Int64(full.count + short.count) + headers)
    }

    /// Page-aligned blocks (slices of pooled receive buffers) take the `O_DIRECT` path where the file
    /// system allows it: whole pages direct, the rest buffered; the bytes must come back the same.
    func testPageAlignedBlocksRoundTrip() throws {
        let directory = try TemporaryDirectory()
        let blockSize = 1 << 20
        let cache = try BlockCache(directory: directory.url, capacity: 64 << 20, blockSize: blockSize)
        let sizes = [blockSize, blockSize - 1, 4096, 5000, 100]
        for (block, size) in sizes.enumerated() {
            let source = blockData(block, count: size)
            var memory: UnsafeMutableRawPointer?
            XCTAssertEqual(posix_memalign(&memory, 4096, size), 0)
            let aligned = try XCTUnwrap(memory)
            source.withUnsafeBytes { aligned.copyMemory(from: $0.baseAddress!, byteCount: size) }
            let data = Data(bytesNoCopy: aligned, count: size, deallocator: .free)
            cache.write(fileID: "aligned", version: "v", block: block, data: data)
        }
        for (block, size) in sizes.enumerated() {
            XCTAssertEqual(cache.read(fileID: "aligned", version: "v", block: block), blockData(block, count: size),
                           "block \(block) of \(size) bytes")
        }
    }

    func testOtherVersionOrFileIsAMiss() throws {
        let directory = try TemporaryDirectory()
        let cache = try BlockCache(directory: directory.url, capacity: 1 << 20, blockSize: 4096)
        cache.write(fileID: "1", version: "v1", block: 0, data: blockData(1, count: 4096))
        XCTAssertNil(cache.read(fileID: "1", version: "v2", block: 0))
        XCTAssertNil(cache.read(fileID: "2", version: "v1", block: 0))
        XCTAssertFalse(cache.has(fileID: "1", version: "v2", block: 0))
        XCTAssertNotNil(cache.read(fileID: "1", version: "v1", block: 0))
    }

    func testWritingANewVersionDropsTheOldOnesBlocks() throws {
        let directory = try TemporaryDirectory()
        let cache = try BlockCache(directory: directory.url, capacity: 1 << 20, blockSize: 4096)
        cache.write(fileID: "1", version: "old", block: 0, data: blockData(1, count: 4096))
        cache.write(fileID: "1", version: "old", block: 1, data: blockData(2, count: 4096))
        cache.write(fileID: "2", version: "old", block: 0, data: blockData(3, count: 4096))
        cache.write(fileID: "1", version: "new", block: 5, data: blockData(4, count: 100))
        XCTAssertFalse(cache.has(fileID: "1", version: "old", block: 0))
        XCTAssertFalse(cache.has(fileID: "1", version: "old", block: 1))
        XCTAssertTrue(cache.has(fileID: "2", version: "old", block: 0), "other files keep their blocks")
        XCTAssertEqual(cache.read(fileID: "1", version: "new", block: 5), blockData(4, count: 100))
        XCTAssertEqual(try blockFiles(in: directory.url).count, 2)
    }

    func testRemoveFileDropsAllItsVersions() throws {
        let directory = try TemporaryDirectory()
        let cache = try BlockCache(directory: directory.url, capacity: 1 << 20, blockSize: 4096)
        for block in 0..<3 { cache.write(fileID: "9", version: "a", block: block, data: blockData(block, count: 10)) }
        cache.write(fileID: "10", version: "a", block: 0, data: blockData(7, count: 10))
        cache.remove(fileID: "9")
        XCTAssertEqual(cache.blockCount, 1)
        XCTAssertNil(cache.read(fileID: "9", version: "a", block: 0))
        XCTAssertEqual(cache.read(fileID: "10", version: "a", block: 0), blockData(7, count: 10))
        XCTAssertEqual(try blockFiles(in: directory.url).count, 1)
        XCTAssertEqual(cache.usedBytes, Int64(BlockTrailer.fixedLength + 2 + 1 + 10))
    }

    func testUnusualKeysAreStoredUnderSafeNames() throws {
        let directory = try TemporaryDirectory()
        let cache = try BlockCache(directory: directory.url, capacity: 1 << 20, blockSize: 64)
        let odd = ["../../etc/passwd", "a~b~3", "ünïcode/ and spaces", String(repeating: "x", count: 150), ".", ".."]
        for (number, id) in odd.enumerated() {
            cache.write(fileID: id, version: id, block: number, data: blockData(number, count: 64))
        }
        for (number, id) in odd.enumerated() {
            XCTAssertEqual(cache.read(fileID: id, version: id, block: number), blockData(number, count: 64), id)
        }
        XCTAssertEqual(try blockFiles(in: directory.url).count, odd.count, "all files stay inside the cache")
    }

    func testBlocksThatCannotBeStoredAreDropped() throws {
        let directory = try TemporaryDirectory()
        let cache = try BlockCache(directory: directory.url, capacity: 1 << 20, blockSize: 4096)
        cache.write(fileID: "1", version: "v", block: 0, data: Data())
        cache.write(fileID: "1", version: "v", block: 1, data: blockData(1, count: 4097))
        cache.write(fileID: "1", version: "v", block: -1, data: blockData(1, count: 10))
        cache.write(fileID: "", version: "v", block: 0, data: blockData(1, count: 10))
        cache.write(fileID: String(repeating: "9", count: 201), version: "v", block: 0, data: blockData(1, count: 10))
        XCTAssertEqual(cache.blockCount, 0)
        XCTAssertEqual(cache.usedBytes, 0)
    }

    func testCapacitySmallerThanABlockStoresNothing() throws {
        let directory = try TemporaryDirectory()
        let cache = try BlockCache(directory: directory.url, capacity: 1000, blockSize: 4096)
        cache.write(fileID: "1", version: "v", block: 0, data: blockData(1, count: 4096))
        XCTAssertNil(cache.read(fileID: "1", version: "v", block: 0))
        XCTAssertEqual(cache.usedBytes, 0)
        XCTAssertEqual(try blockFiles(in: directory.url).count, 0)
        cache.write(fileID: "1", version: "v", block: 1, data: blockData(1, count: 100))
        XCTAssertEqual(cache.read(fileID: "1", version: "v", block: 1), blockData(1, count: 100), "small ones fit")
    }
}

/// Every block file under the cache directory (whatever the layout folders are called).
func blockFiles(in directory: URL) throws -> [URL] {
    let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey])
    return (enumerator?.allObjects as? [URL] ?? []).filter {
        $0.path.contains("/blocks/") && (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
    }
}
