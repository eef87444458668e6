import BoxTestSupport
import Foundation
import XCTest

/// The on-disk block cache, seen through real mounts: kept across remounts, never trusted when
/// corrupt, never larger than its limit.
final class CacheTests: MountTestCase {
    /// Seeds `data.bin` of `size` bytes, reads it whole through a mount with its own cache folder, and
    /// unmounts: the cache then holds the file. Returns the cache folder and the file's SHA-1.
    func primeCache(size: Int) async throws -> (sim: BoxSimProcess, cache: URL, sha1: String) {
        let seed = try SeedTree.make(texts: [:], largeFiles: ["data.bin": size])
        let cache = try makeCacheDirectory()
        let sim = try await BoxSimProcess.start(seed: seed)
        boxsim = sim
        let expected = try sha1(seed.appendingPathComponent("data.bin").path)
        let first = try MountFixture.mount(sim, options: ["cache_dir=\(cache.path)"])
        XCTAssertEqual(try sha1(first.path("data.bin")), expected)
        first.unmount()
        return (sim, cache, expected)
    }

    func testBytesReadOnceAreServedFromTheCacheAfterARemount() async throws {
        let (sim, cache, expected) = try await primeCache(size: 6 << 20)
        let before = try lastSequence(sim)
        let second = try MountFixture.mount(sim, options: ["cache_dir=\(cache.path)"])
        mount = second
        XCTAssertEqual(try sha1(second.path("data.bin")), expected)
        XCTAssertEqual(try downloadedBytes(after: before, in: sim), 0, "every byte came from the block cache")
    }

    func testACorruptBlockIsFetchedAgainNotServed() async throws {
        let (sim, cache, expected) = try await primeCache(size: 4 << 20)
        let blocks = blockFiles(in: cache)
        XCTAssertEqual(blocks.count, 4, "four 1 MiB blocks cached")
        let victim = try FileHandle(forUpdating: try XCTUnwrap(blocks.first))
        try victim.seek(toOffset: 1000)
        let original = try XCTUnwrap(victim.read(upToCount: 1))
        try victim.seek(toOffset: 1000)
        victim.write(Data([original[0] ^ 0xFF]))
        try victim.close()

        let before = try lastSequence(sim)
        let second = try MountFixture.mount(sim, options: ["cache_dir=\(cache.path)"])
        mount = second
        XCTAssertEqual(try sha1(second.path("data.bin")), expected, "the corrupt block is never served")
        XCTAssertEqual(try downloadedBytes(after: before, in: sim), 1 << 20, "exactly the corrupt block is fetched again")
    }

    func testTheCacheNeverGrowsPastItsLimit() async throws {
        let seed = try SeedTree.make(texts: [:], largeFiles: ["a.bin": 12 << 20, "b.bin": 12 << 20])
        let cache = try makeCacheDirectory()
        let mount = try await mountBoxSim(seed: seed, options: ["cache_dir=\(cache.path)", "cache_size=6M"])
        for name in ["a.bin", "b.bin"] {
            XCTAssertEqual(try sha1(mount.path(name)), try sha1(seed.appendingPathComponent(name).path))
        }
        let used = try blockFiles(in: cache).reduce(Int64(0)) {
            $0 + Int64(try $1.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0)
        }
        XCTAssertGreaterThan(used, 0)
        XCTAssertLessThanOrEqual(used, 6 << 20, "the cache holds \(used) bytes with a 6 MiB limit")
    }

    func testCacheOffStillReadsCorrectlyAndWritesNothing() async throws {
        let seed = try SeedTree.make(texts: [:], largeFiles: ["a.bin": 3 << 20])
        let cache = try makeCacheDirectory()
        let mount = try await mountBoxSim(seed: seed, options: ["cache=off", "cache_dir=\(cache.path)"])
        XCTAssertEqual(try sha1(mount.path("a.bin")), try sha1(seed.appendingPathComponent("a.bin").path))
        XCTAssertTrue(blockFiles(in: cache).isEmpty)
    }

    func testASecondOpenOfAnUnchangedFileMakesNoRequest() async throws {
        let seed = try SeedTree.make(texts: [:], largeFiles: ["a.bin": 5 << 20])
        let mount = try await mountBoxSim(seed: seed)
        let sim = try XCTUnwrap(boxsim)
        let expected = try sha1(mount.path("a.bin"))
        let before = try lastSequence(sim)
        XCTAssertEqual(try sha1(mount.path("a.bin")), expected)
        XCTAssertEqual(try downloadedBytes(after: before, in: sim), 0)
    }
}
