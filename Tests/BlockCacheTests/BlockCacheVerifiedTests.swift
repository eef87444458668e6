import Foundation
import XCTest

@testable import BlockCache

/// The verified marker of a cached version: set only on request, kept across reopening, gone with any new block
/// of the file, with the file's blocks, and at start-up when its blocks are gone.
final class BlockCacheVerifiedTests: XCTestCase {
    func testAMarkIsKeptAcrossReopeningAndGoesWithANewBlockOrTheFilesBlocks() throws {
        let directory = try TemporaryDirectory()
        var cache: BlockCache? = try BlockCache(directory: directory.url, capacity: 1 << 20, blockSize: 4096)
        cache?.write(fileID: "1", version: "v1", block: 0, data: blockData(1, count: 4096))
        XCTAssertEqual(cache?.isVerified(fileID: "1", version: "v1"), false, "blocks start unverified")
        cache?.markVerified(fileID: "1", version: "v1")
        XCTAssertEqual(cache?.isVerified(fileID: "1", version: "v1"), true)
        XCTAssertEqual(cache?.isVerified(fileID: "1", version: "v2"), false, "only that version")
        cache = nil
        cache = try BlockCache(directory: directory.url, capacity: 1 << 20, blockSize: 4096)
        XCTAssertEqual(cache?.isVerified(fileID: "1", version: "v1"), true, "kept across reopening")

        cache?.write(fileID: "1", version: "v1", block: 1, data: blockData(2, count: 4096))
        XCTAssertEqual(cache?.isVerified(fileID: "1", version: "v1"), false, "a new block is unverified")
        cache?.markVerified(fileID: "1", version: "v1")
        cache?.remove(fileID: "1")
        XCTAssertEqual(cache?.isVerified(fileID: "1", version: "v1"), false, "gone with the blocks")
        cache?.markVerified(fileID: "1", version: "v1")
        XCTAssertEqual(cache?.isVerified(fileID: "1", version: "v1"), false, "no mark without blocks")
    }

    func testAMarkWhoseBlocksAreGoneIsDroppedAtStart() throws {
        let directory = try TemporaryDirectory()
        var cache: BlockCache? = try BlockCache(directory: directory.url, capacity: 1 << 20, blockSize: 4096)
        cache?.write(fileID: "1", version: "v1", block: 0, data: blockData(1, count: 4096))
        cache?.markVerified(fileID: "1", version: "v1")
        let layout = try XCTUnwrap(cache?.layout)
        cache = nil
        let blocks = try FileManager.default.subpathsOfDirectory(atPath: layout.blocksDirectory)
            .filter { $0.hasSuffix("~0") }
        XCTAssertEqual(blocks.count, 1)
        try FileManager.default.removeItem(atPath: layout.blocksDirectory + "/" + blocks[0])
        cache = try BlockCache(directory: directory.url, capacity: 1 << 20, blockSize: 4096)
        XCTAssertEqual(cache?.isVerified(fileID: "1", version: "v1"), false)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: layout.verifiedDirectory), [])
    }
}
