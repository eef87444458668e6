import BoxTestSupport
import Foundation
import XCTest

/// `cache_size` is the limit for the whole `cache_dir`: after a server change (a new subfolder), the old
/// subfolder's blocks count, a running mount's are left alone, and a cache nobody has used for long is trimmed.
final class CacheDirectorySharingTests: XCTestCase {
    var sims: [BoxSimProcess] = []
    var mounts: [MountFixture] = []
    var cacheDirectory: URL!

    override func setUp() async throws {
        cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("shared-cache-\(UUID().uuidString)")
    }

    override func tearDown() async throws {
        mounts.forEach { $0.unmount() }
        sims.forEach { $0.stop() }
        try? FileManager.default.removeItem(at: cacheDirectory)
    }

    /// A boxsim with `one.bin` (8 MiB), mounted with the shared cache_dir and `cache_size`.
    func mountNewServer(cacheSize: String) async throws -> (MountFixture, String) {
        let seed = try SeedTree.make(largeFiles: ["one.bin": 8 << 20])
        let sim = try await BoxSimProcess.start(seed: seed)
        sims.append(sim)
        let mount = try MountFixture.mount(sim, options: ["cache_dir=\(cacheDirectory.path)", "cache_size=\(cacheSize)"])
        mounts.append(mount)
        let result = try Shell.run(["sha1sum", mount.path("one.bin")])
        XCTAssertEqual(String(result.stdout.prefix(40)), String(try Shell.run(["sha1sum", seed.appendingPathComponent("one.bin").path]).stdout.prefix(40)))
        return (mount, sim.baseURL)
    }

    /// Bytes of block files under each subfolder of the cache_dir.
    func blockBytes() throws -> [String: Int64] {
        var sizes: [String: Int64] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: cacheDirectory.path) {
            let blocks = cacheDirectory.appendingPathComponent(name).appendingPathComponent("boxfs-layout-2/blocks")
            let keys: [URLResourceKey] = [.fileSizeKey, .isRegularFileKey]
            guard let walker = FileManager.default.enumerator(at: blocks, includingPropertiesForKeys: keys) else { continue }
            for case let url as URL in walker {
                let values = try url.resourceValues(forKeys: Set(keys))
                if values.isRegularFile == true { sizes[name, default: 0] += Int64(values.fileSize ?? 0) }
            }
        }
        return sizes.filter { $0.value > 0 }
    }

    func testTheLimitHoldsForTheWholeCacheDirAcrossServersAndRunningMounts() async throws {
        // A first server's mount caches its file and stays mounted: its 8 MiB are in use.
        let (first, _) = try await mountNewServer(cacheSize: "20M")
        let afterFirst = try blockBytes()
        XCTAssertEqual(afterFirst.count, 1)
        let firstBytes = try XCTUnwrap(afterFirst.values.first)
        XCTAssertGreaterThanOrEqual(firstBytes, 8 << 20)
        // A second server (another subfolder) gets what is left of 20M while the first runs.
        _ = try await mountNewServer(cacheSize: "20M")
        var sizes = try blockBytes()
        XCTAssertEqual(sizes.count, 2)
        XCTAssertTrue(sizes.values.allSatisfy { $0 >= 8 << 20 }, "both fit in 20M: \(sizes)")
        // A third with 20M while both run: 4M left, so its file is not kept whole; the others are untouched.
        _ = try await mountNewServer(cacheSize: "20M")
        sizes = try blockBytes()
        XCTAssertLessThanOrEqual(sizes.values.reduce(0, +), 20 << 20, "the whole cache_dir within cache_size: \(sizes)")
        XCTAssertEqual(sizes.values.filter { $0 >= firstBytes }.count, 2, "running mounts' caches untouched: \(sizes)")
        // Once the first is unmounted (idle), a new mount keeps it within half of what running ones leave.
        first.unmount()
        mounts.removeFirst()
        _ = try await mountNewServer(cacheSize: "20M")
        sizes = try blockBytes()
        XCTAssertLessThanOrEqual(sizes.values.reduce(0, +), 20 << 20, "the whole cache_dir within cache_size: \(sizes)")
    }

    func testACacheNobodyUsedForAMonthIsTrimmedAtTheNextMountButItsWriteBackStateStays() async throws {
        // A subfolder left by a server nobody mounts any more: blocks and lock file last used 40 days ago.
        let stale = cacheDirectory.appendingPathComponent("0123456789abcdef")
        let block = stale.appendingPathComponent("boxfs-layout-2/blocks/00/1~v~0")
        let journal = stale.appendingPathComponent("writeback-0/journal.sqlite")
        for url in [block, journal] {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(count: 1 << 20).write(to: url)
        }
        let lock = stale.appendingPathComponent("boxfs-cache.lock")
        try Data().write(to: lock)
        let old = Date().addingTimeInterval(-40 * 86_400)
        for url in [block, lock] { try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: url.path) }

        _ = try await mountNewServer(cacheSize: "20M")
        XCTAssertFalse(FileManager.default.fileExists(atPath: stale.appendingPathComponent("boxfs-layout-2").path),
                       "the stale cache's blocks are gone")
        XCTAssertTrue(FileManager.default.fileExists(atPath: journal.path), "its write-back journal stays")
    }
}
