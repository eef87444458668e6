import BoxTestSupport
import Foundation
import XCTest

/// Wrong bytes from the server (boxsim's `corrupt` fault: a 200/206 whose body has a flipped byte) are never
/// kept past a failed whole-file check, and a whole read never ends well with them, whether its blocks come
/// from the network, memory or the disk cache (docs/SEMANTICS.md, "Wrong bytes from Box").
final class WrongBytesTests: MountTestCase {
    static let size = 4 << 20

    func start() async throws -> (sim: BoxSimProcess, seed: URL, expected: String) {
        let seed = try SeedTree.make(texts: [:], largeFiles: ["data.bin": Self.size])
        addTeardownBlock { try? FileManager.default.removeItem(at: seed) }
        let sim = try await BoxSimProcess.start(seed: seed)
        boxsim = sim
        return (sim, seed, try sha1(seed.appendingPathComponent("data.bin").path))
    }

    func testAPartialReadOfWrongBytesIsNotTrustedByAWholeReadAfterARemount() async throws {
        let (sim, _, expected) = try await start()
        let cache = try makeCacheDirectory()
        let api = BoxSimAPI(sim)
        try api.corruptBodies(atByte: 1000)
        let first = try MountFixture.mount(sim, options: ["cache_dir=\(cache.path)"])
        mount = first
        let partial = try Shell.run(["head", "-c", "65536", first.path("data.bin")])
        XCTAssertEqual(partial.status, 0, "a partial read cannot be checked against the whole file's SHA-1")
        first.unmount()
        XCTAssertFalse(blockFiles(in: cache).isEmpty, "the unverified blocks were cached")

        try api.clearFaults()
        let second = try MountFixture.mount(sim, options: ["cache_dir=\(cache.path)"])
        mount = second
        let whole = try Shell.run(["sha1sum", second.path("data.bin")])
        if whole.status == 0 {
            XCTAssertEqual(String(whole.stdout.prefix(40)), expected, "a whole read that succeeds has the right bytes")
        }
        XCTAssertEqual(try sha1(second.path("data.bin")), expected, "the next whole read has the right bytes")
    }

    func testAWholeReadAfterAPartialReadInTheSameMountChecksEveryByte() async throws {
        let (sim, _, expected) = try await start()
        try BoxSimAPI(sim).corruptBodies(atByte: 1000)
        let mount = try MountFixture.mount(sim)
        self.mount = mount
        XCTAssertEqual(try Shell.run(["head", "-c", "65536", mount.path("data.bin")]).status, 0)
        try BoxSimAPI(sim).clearFaults()
        // The kernel still holds the pages of the partial read; they must not skip the whole read's check.
        let whole = try Shell.run(["sha1sum", mount.path("data.bin")])
        if whole.status == 0 {
            XCTAssertEqual(String(whole.stdout.prefix(40)), expected, "a whole read that succeeds has the right bytes")
        }
        XCTAssertEqual(try sha1(mount.path("data.bin")), expected, "the next whole read has the right bytes")
    }

    func testAWholeReadOfWrongBytesFailsAndKeepsNoBlock() async throws {
        let (sim, seed, expected) = try await start()
        let cache = try makeCacheDirectory()
        let api = BoxSimAPI(sim)
        try api.corruptBodies(atByte: 1000)
        let mount = try MountFixture.mount(sim, options: ["cache_dir=\(cache.path)"])
        self.mount = mount
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("copy-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: copy) }
        let whole = try Shell.run(["cp", mount.path("data.bin"), copy.path])
        XCTAssertNotEqual(whole.status, 0, "the whole read fails")
        XCTAssertTrue(whole.stderr.contains("Input/output error"), whole.stderr)
        XCTAssertEqual(blockFiles(in: cache), [], "no block of the wrong version is left on disk")

        try api.clearFaults()
        let before = try lastSequence(sim)
        XCTAssertEqual(try sha1(mount.path("data.bin")), expected, "the next open fetches the file again")
        XCTAssertEqual(try downloadedBytes(after: before, in: sim), Int64(Self.size), "every block is fetched again")
        _ = seed
    }

    func testOnlyAWholeReadThatMatchedMarksTheCachedVersionVerified() async throws {
        let (sim, _, expected) = try await start()
        let cache = try makeCacheDirectory()
        let mount = try MountFixture.mount(sim, options: ["cache_dir=\(cache.path)"])
        self.mount = mount
        XCTAssertEqual(try Shell.run(["head", "-c", "65536", mount.path("data.bin")]).status, 0)
        try await Poll.until("the partial read's blocks on disk") { self.blockFiles(in: cache).isEmpty ? nil : true }
        XCTAssertEqual(verifiedMarkers(in: cache), [], "blocks of a partial read are unverified")

        XCTAssertEqual(try sha1(mount.path("data.bin")), expected)
        XCTAssertEqual(verifiedMarkers(in: cache).count, 1, "the whole read matched: the version is verified")
        mount.unmount()

        // A block fetched again (it went missing) makes the version unverified, on disk too; its wrong bytes
        // then fail the next whole read, which takes every block of the file and the marker with it.
        let first = try XCTUnwrap(blockFiles(in: cache).first { $0.lastPathComponent.hasSuffix("~0") })
        try FileManager.default.removeItem(at: first)
        try BoxSimAPI(sim).corruptBodies(atByte: 1000)
        let second = try MountFixture.mount(sim, options: ["cache_dir=\(cache.path)"])
        self.mount = second
        XCTAssertEqual(try Shell.run(["head", "-c", "65536", second.path("data.bin")]).status, 0)
        second.unmount()
        XCTAssertEqual(verifiedMarkers(in: cache), [], "a refetched block is unverified")
        XCTAssertEqual(blockFiles(in: cache).count, 4)

        let third = try MountFixture.mount(sim, options: ["cache_dir=\(cache.path)"])
        self.mount = third
        XCTAssertNotEqual(try Shell.run(["sha1sum", third.path("data.bin")]).status, 0, "the refetched block is wrong")
        XCTAssertEqual(blockFiles(in: cache), [])
        XCTAssertEqual(verifiedMarkers(in: cache), [])
    }

    /// Random wrong bytes over partial and whole reads of several files: a whole read that exits 0 always has
    /// Box's bytes, and once the server is right again every file reads right (at worst after one failure).
    func testUnderRandomWrongBytesNoWholeReadEndsWellWithAWrongByte() async throws {
        var files: [String: Int] = [:]
        for index in 0..<5 { files["f\(index).bin"] = (2 << 20) + index * 300_000 }
        let seed = try SeedTree.make(texts: [:], largeFiles: files)
        addTeardownBlock { try? FileManager.default.removeItem(at: seed) }
        let mount = try await mountBoxSim(seed: seed)
        let sim = try XCTUnwrap(boxsim)
        var expected: [String: String] = [:]
        for name in files.keys { expected[name] = try sha1(seed.appendingPathComponent(name).path) }
        try BoxSimAPI(sim).corruptBodies(rate: 0.4)
        var failures = 0
        for round in 0..<3 {
            for name in files.keys.sorted() {
                let length = 4096 + (round * 7919 + name.utf8.reduce(0) { $0 * 31 + Int($1) }) % 1_500_000
                // Either status is right: the kernel's read-ahead (1 MiB) may carry a long head to the file's end,
                // which makes it a whole read, checked.
                _ = try Shell.run(["head", "-c", String(length), mount.path(name)])
                let whole = try Shell.run(["sha1sum", mount.path(name)])
                if whole.status == 0 {
                    XCTAssertEqual(String(whole.stdout.prefix(40)), expected[name], "\(name), round \(round)")
                } else {
                    failures += 1
                }
            }
        }
        XCTAssertGreaterThan(failures, 0, "the fault did hit some whole reads")
        XCTAssertGreaterThan(try sim.requestLog().filter { $0.fault == "corrupt" }.count, 0)
        try BoxSimAPI(sim).clearFaults()
        for name in files.keys.sorted() {
            let whole = try Shell.run(["sha1sum", mount.path(name)])
            if whole.status == 0 {
                XCTAssertEqual(String(whole.stdout.prefix(40)), expected[name], name)
            } else {
                XCTAssertEqual(try sha1(mount.path(name)), expected[name], "\(name) after one failure")
            }
        }
    }

    func verifiedMarkers(in cache: URL) -> [String] {
        let enumerator = FileManager.default.enumerator(at: cache, includingPropertiesForKeys: nil)
        return (enumerator?.allObjects as? [URL] ?? []).filter { $0.path.contains("/verified/") }.map(\.lastPathComponent)
    }

    func testAWholeReadWithoutCacheFailsOnWrongBytes() async throws {
        let (sim, _, expected) = try await start()
        let api = BoxSimAPI(sim)
        try api.corruptBodies(atByte: 1000, count: 1)
        let mount = try MountFixture.mount(sim, options: ["cache=off"])
        self.mount = mount
        let whole = try Shell.run(["sha1sum", mount.path("data.bin")])
        XCTAssertNotEqual(whole.status, 0, "cache=off: the whole read fails at its end")
        XCTAssertEqual(try sha1(mount.path("data.bin")), expected, "the next open reads the right bytes")
    }
}
