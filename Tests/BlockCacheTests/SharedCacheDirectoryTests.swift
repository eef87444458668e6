import Foundation
import XCTest

@testable import BlockCache

/// `cache_size` holds for a whole `cache_dir`: the caches of other accounts and servers in it count, a
/// running mount's cache is never touched, idle ones give way, and stale ones are trimmed.
final class SharedCacheDirectoryTests: XCTestCase {
    let blockSize = 4096

    /// A cache in `base/name` holding `blocks` blocks (closed again unless kept).
    func fill(_ base: URL, _ name: String, blocks: Int) throws -> BlockCache {
        let cache = try BlockCache(directory: base.appendingPathComponent(name), capacity: 1 << 30, blockSize: blockSize)
        for block in 0..<blocks {
            cache.write(fileID: name, version: "v", block: block, data: blockData(block, count: blockSize))
        }
        return cache
    }

    func bytes(_ cache: BlockCache) -> Int64 { cache.usedBytes }

    func testACacheInUseCountsAndIsLeftAlone() throws {
        let base = try TemporaryDirectory()
        let running = try fill(base.url, "running", blocks: 10)
        let used = bytes(running)
        let sharing = SharedCacheDirectory.share(
            base: base.url, own: base.url.appendingPathComponent("mine"), limit: used * 3, blockSize: blockSize)
        XCTAssertEqual(sharing.inUse, used)
        XCTAssertEqual(sharing.capacity, used * 2, "the limit less what the running mount holds")
        XCTAssertEqual(sharing.trimmed, 0)
        XCTAssertEqual(running.blockCount, 10)
        XCTAssertTrue((0..<10).allSatisfy { running.read(fileID: "running", version: "v", block: $0) != nil })
    }

    func testIdleCachesKeepAtMostHalfOfTheLimitTheirOldestBlocksGoingFirst() throws {
        let base = try TemporaryDirectory()
        var perBlock: Int64 = 0
        do {
            let idle = try fill(base.url, "idle", blocks: 10)
            perBlock = bytes(idle) / 10
            // Blocks 5...9 read later than 0...4 (coarse mtimes: spaced out).
            Thread.sleep(forTimeInterval: 0.02)
            for block in 5..<10 { _ = idle.read(fileID: "idle", version: "v", block: block) }
        }
        let limit = perBlock * 12
        let sharing = SharedCacheDirectory.share(
            base: base.url, own: base.url.appendingPathComponent("mine"), limit: limit, blockSize: blockSize)
        XCTAssertEqual(sharing.idle, perBlock * 6, "idle caches keep at most half the limit")
        XCTAssertEqual(sharing.trimmed, perBlock * 4)
        XCTAssertEqual(sharing.capacity, limit - perBlock * 6, "the whole cache_dir stays within the limit")
        let reopened = try BlockCache(directory: base.url.appendingPathComponent("idle"), capacity: 1 << 30, blockSize: blockSize)
        XCTAssertEqual(reopened.blockCount, 6)
        XCTAssertTrue((5..<10).allSatisfy { reopened.has(fileID: "idle", version: "v", block: $0) }, "the recently read stay")
    }

    func testACacheNobodyUsedForAWhileIsTrimmedAndTheRestOfItsFolderKept() throws {
        let base = try TemporaryDirectory()
        _ = try fill(base.url, "stale", blocks: 3)
        let journal = base.url.appendingPathComponent("stale/writeback-0/journal.sqlite")
        try FileManager.default.createDirectory(at: journal.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("pending".utf8).write(to: journal)
        let sharing = SharedCacheDirectory.share(
            base: base.url, own: base.url.appendingPathComponent("mine"), limit: 1 << 30, blockSize: blockSize,
            staleAfter: 3600, now: Date().addingTimeInterval(7200))
        XCTAssertEqual(sharing.idle, 0)
        XCTAssertGreaterThan(sharing.trimmed, 0)
        XCTAssertEqual(sharing.capacity, 1 << 30)
        XCTAssertFalse(FileManager.default.fileExists(atPath: base.url.appendingPathComponent("stale/boxfs-layout-2").path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: journal.path), "write-back state is never trimmed")
        // Used within the hour: kept.
        _ = try fill(base.url, "recent", blocks: 3)
        let again = SharedCacheDirectory.share(
            base: base.url, own: base.url.appendingPathComponent("mine"), limit: 1 << 30, blockSize: blockSize,
            staleAfter: 3600)
        XCTAssertGreaterThan(again.idle, 0)
        XCTAssertEqual(again.trimmed, 0)
    }

    func testTheMountsOwnFolderAndForeignFoldersAreNotCounted() throws {
        let base = try TemporaryDirectory()
        let own = try fill(base.url, "mine", blocks: 4)
        try FileManager.default.createDirectory(at: base.url.appendingPathComponent("logs"), withIntermediateDirectories: true)
        let sharing = SharedCacheDirectory.share(
            base: base.url, own: base.url.appendingPathComponent("mine"), limit: 1 << 20, blockSize: blockSize)
        XCTAssertEqual(sharing, SharedCacheDirectory.Sharing(capacity: 1 << 20, inUse: 0, idle: 0, trimmed: 0))
        XCTAssertEqual(own.blockCount, 4)
    }
}
