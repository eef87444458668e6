import Foundation
import XCTest

@testable import BlockCache

/// A block file that is damaged, cut short, misplaced or half-written is never returned.
final class BlockCacheIntegrityTests: XCTestCase {
    private func cacheWithOneBlock(_ directory: TemporaryDirectory) throws -> (BlockCache, URL) {
        let cache = try BlockCache(directory: directory.url, capacity: 1 << 20, blockSize: 4096)
        cache.write(fileID: "42", version: "7", block: 3, data: blockData(42, count: 4096))
        let files = try blockFiles(in: directory.url)
        XCTAssertEqual(files.count, 1)
        return (cache, try XCTUnwrap(files.first))
    }

    private func flipByte(at offset: Int, in file: URL) throws {
        var bytes = try Data(contentsOf: file)
        bytes[offset] ^= 0x01
        try bytes.write(to: file)
    }

    func testACorruptDataByteIsAMissAndTheFileIsDeleted() throws {
        let directory = try TemporaryDirectory()
        let (cache, file) = try cacheWithOneBlock(directory)
        try flipByte(at: 3000, in: file)
        XCTAssertNil(cache.read(fileID: "42", version: "7", block: 3))
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path))
        XCTAssertFalse(cache.has(fileID: "42", version: "7", block: 3))
        XCTAssertEqual(cache.usedBytes, 0)
    }

    func testACorruptTrailerByteIsAMiss() throws {
        // Magic, layout version, length, block index, data length, checksum, padding, file id.
        for offset in [0, 9, 13, 17, 25, 33, 50, BlockTrailer.fixedLength + 1] {
            let directory = try TemporaryDirectory()
            let (cache, file) = try cacheWithOneBlock(directory)
            try flipByte(at: 4096 + offset, in: file)
            XCTAssertNil(cache.read(fileID: "42", version: "7", block: 3), "byte \(offset)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: file.path), "byte \(offset)")
        }
    }

    func testATruncatedBlockIsAMiss() throws {
        let directory = try TemporaryDirectory()
        let (cache, file) = try cacheWithOneBlock(directory)
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: 2000)
        try handle.close()
        XCTAssertNil(cache.read(fileID: "42", version: "7", block: 3))
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path))
    }

    func testATruncatedBlockFoundAtStartIsAMissToo() throws {
        let directory = try TemporaryDirectory()
        var file: URL
        do {
            let (_, written) = try cacheWithOneBlock(directory)
            file = written
        }
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: 2000)
        try handle.close()
        let reopened = try BlockCache(directory: directory.url, capacity: 1 << 20, blockSize: 4096)
        XCTAssertTrue(reopened.has(fileID: "42", version: "7", block: 3), "start-up does not open blocks")
        XCTAssertNil(reopened.read(fileID: "42", version: "7", block: 3))
        XCTAssertEqual(reopened.usedBytes, 0)
    }

    func testABlockCopiedUnderAnotherKeysNameIsAMiss() throws {
        let directory = try TemporaryDirectory()
        var file: URL
        do {
            let (_, written) = try cacheWithOneBlock(directory)
            file = written
        }
        // Same length, so only the header's key can tell: claim it is block 4.
        let other = try XCTUnwrap(BlockKey(fileID: "42", version: "7", block: 4))
        let target = file.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(other.fanOut).appendingPathComponent(other.fileName)
        try FileManager.default.moveItem(at: file, to: target)
        let reopened = try BlockCache(directory: directory.url, capacity: 1 << 20, blockSize: 4096)
        XCTAssertTrue(reopened.has(fileID: "42", version: "7", block: 4))
        XCTAssertNil(reopened.read(fileID: "42", version: "7", block: 4))
        XCTAssertFalse(FileManager.default.fileExists(atPath: target.path))
    }

    func testLeftoversOfACrashAndForeignFilesAreRemovedAtStart() throws {
        let directory = try TemporaryDirectory()
        var layoutFolder: URL
        do {
            let (cache, _) = try cacheWithOneBlock(directory)
            layoutFolder = URL(fileURLWithPath: cache.layout.layoutDirectory)
        }
        let halfWritten = layoutFolder.appendingPathComponent("tmp/99")
        try blockData(1, count: 100).write(to: halfWritten)
        let foreign = layoutFolder.appendingPathComponent("blocks/00/not-a-block")
        try Data("x".utf8).write(to: foreign)
        let unrelated = directory.url.appendingPathComponent("notes.txt")
        try Data("mine".utf8).write(to: unrelated)
        let reopened = try BlockCache(directory: directory.url, capacity: 1 << 20, blockSize: 4096)
        XCTAssertFalse(FileManager.default.fileExists(atPath: halfWritten.path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: foreign.path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: unrelated.path), "files not ours are left alone")
        XCTAssertEqual(reopened.read(fileID: "42", version: "7", block: 3), blockData(42, count: 4096))
    }

    func testAFailedWriteIsDroppedWithoutCrashing() throws {
        let directory = try TemporaryDirectory()
        let cache = try BlockCache(directory: directory.url, capacity: 1 << 20, blockSize: 4096)
        // Make the block's fan-out folder unusable (a file in its place: ENOTDIR even for root).
        let key = try XCTUnwrap(BlockKey(fileID: "1", version: "v", block: 0))
        let folder = URL(fileURLWithPath: cache.layout.blockPath(key)).deletingLastPathComponent()
        try FileManager.default.removeItem(at: folder)
        try Data().write(to: folder)
        cache.write(fileID: "1", version: "v", block: 0, data: blockData(1, count: 4096))
        XCTAssertNil(cache.read(fileID: "1", version: "v", block: 0))
        XCTAssertEqual(cache.usedBytes, 0)
        XCTAssertEqual(cache.blockCount, 0)
        // The reservation was given back: after repairing, the full capacity is usable again.
        try FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        cache.write(fileID: "1", version: "v", block: 0, data: blockData(1, count: 4096))
        XCTAssertEqual(cache.read(fileID: "1", version: "v", block: 0), blockData(1, count: 4096))
    }

    func testAFailedReplacementKeepsNothingStale() throws {
        let directory = try TemporaryDirectory()
        let (cache, _) = try cacheWithOneBlock(directory)
        // Replacing goes through the temp folder: make it unusable.
        let temp = URL(fileURLWithPath: cache.layout.tempDirectory)
        try FileManager.default.removeItem(at: temp)
        try Data().write(to: temp)
        cache.write(fileID: "42", version: "7", block: 3, data: blockData(43, count: 4096))
        XCTAssertEqual(cache.read(fileID: "42", version: "7", block: 3), blockData(42, count: 4096),
                       "the old bytes stay until a replacement is complete")
        XCTAssertEqual(cache.blockCount, 1)
    }
}
