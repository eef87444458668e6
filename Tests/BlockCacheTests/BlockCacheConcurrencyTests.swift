import Foundation
import XCTest

@testable import BlockCache

/// Many tasks writing and reading at once: every read returns either nothing or the right bytes,
/// and the accounting stays within the capacity and equal to the files on disk.
final class BlockCacheConcurrencyTests: XCTestCase {
    func testThirtyTwoTasksWritingAndReadingStayConsistent() async throws {
        let directory = try TemporaryDirectory()
        let blockSize = 8192
        let fileSize = Int64(BlockTrailer.fixedLength + 2 + 1 + blockSize)
        let capacity = fileSize * 40  // smaller than what is written: eviction runs concurrently too
        let cache = try BlockCache(directory: directory.url, capacity: capacity, blockSize: blockSize)
        let wrong = await withTaskGroup(of: Int.self) { group in
            for task in 0..<32 {
                group.addTask {
                    var wrong = 0
                    for step in 0..<60 {
                        let block = (task * 7 + step) % 64
                        let fileID = String(10 + block % 8)
                        if step % 3 == 0 {
                            let data = blockData(block, count: blockSize)
                            cache.write(fileID: fileID, version: "v", block: block, data: data)
                        } else if let data = cache.read(fileID: fileID, version: "v", block: block),
                                  data != blockData(block, count: blockSize) {
                            wrong += 1
                        }
                        if cache.usedBytes > capacity { wrong += 1 }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        XCTAssertEqual(wrong, 0)
        XCTAssertLessThanOrEqual(cache.usedBytes, capacity)
        let files = try blockFiles(in: directory.url)
        XCTAssertEqual(files.count, cache.blockCount)
        XCTAssertEqual(Int64(files.count) * fileSize, cache.usedBytes)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: cache.layout.tempDirectory), [])
        for block in 0..<64 where cache.has(fileID: String(10 + block % 8), version: "v", block: block) {
            XCTAssertEqual(cache.read(fileID: String(10 + block % 8), version: "v", block: block),
                           blockData(block, count: blockSize))
        }
    }
}
