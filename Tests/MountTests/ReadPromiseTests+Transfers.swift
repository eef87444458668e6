import BoxTestSupport
import Foundation
import XCTest

/// Read promises about what crosses the network: shared fetches, kept pages, large reads and growing ranges.
extension ReadPromiseTests {
    // MARK: 4. Concurrent readers share fetches

    func testTwoReadersOfOneFileShareItsFetches() async throws {
        let size = 24 << 20
        let seed = try SeedTree.make(texts: [:], largeFiles: ["shared.bin": size])
        let expected = try sha1(seed.appendingPathComponent("shared.bin").path)
        let (mount, _) = try await mountWithLogFile(seed: seed)
        let sim = try XCTUnwrap(boxsim)
        _ = try succeed(["stat", mount.path("shared.bin")])
        let before = try lastSequence(sim)
        let out = try makeTemporaryDirectory("boxfs-copies")

        // O_DIRECT: every read of both readers reaches the daemon (the kernel's page cache cannot share them).
        let script = """
            dd if="$SRC" of="$OUT/one" bs=1M iflag=direct status=none & first=$!
            dd if="$SRC" of="$OUT/two" bs=1M iflag=direct status=none & second=$!
            wait $first && wait $second
            """
        let result = try Shell.bash(script, environment: ["SRC": mount.path("shared.bin"), "OUT": out.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try sha1(out.appendingPathComponent("one").path), expected)
        XCTAssertEqual(try sha1(out.appendingPathComponent("two").path), expected)

        let fetched = try downloads(after: before)
        let sent = fetched.reduce(0) { $0 + $1.bytesSent }
        XCTAssertGreaterThanOrEqual(sent, Int64(size))
        XCTAssertLessThanOrEqual(sent, Int64(size) + (2 << 20),
                                 "two readers made boxsim send \(sent) bytes of \(size):\n\(fetched.summary)")
    }

    // MARK: 5. The kernel keeps a file's pages across opens (keep_cache)

    func testASecondOpenOfAnUnchangedFileKeepsTheKernelsPages() async throws {
        // No disk cache. What is measured is what the kernel holds (`fincore`), not what reaches Box: this kernel
        // may ask again for a few 4 KiB blocks of pages it keeps (seen in about 1 run in 10 under load, with
        // `keep_cache` set and nothing invalidated), and those reads fetch whole blocks from Box.
        let size = 48 << 20
        let seed = try SeedTree.make(texts: [:], largeFiles: ["kept.bin": size])
        let expected = try sha1(seed.appendingPathComponent("kept.bin").path)
        let (mount, _) = try await mountWithLogFile(seed: seed, options: ["cache=off"])
        let sim = try XCTUnwrap(boxsim)
        let path = mount.path("kept.bin")
        _ = try succeed(["stat", path])
        let first = try lastSequence(sim)
        XCTAssertEqual(try sha1(path), expected)
        XCTAssertGreaterThanOrEqual(try downloadedBytes(after: first, in: sim), Int64(size), "the first read fetched the file")
        XCTAssertGreaterThanOrEqual(try resident(path), size * 9 / 10, "the first read left the file in the page cache")

        // The second open is held while the kernel's pages are counted: an open without keep_cache drops them all.
        let second = try Shell.bash(
            "exec 3< \"$F\" && fincore --bytes --noheadings --output RES \"$F\" && sha1sum <&3", environment: ["F": path])
        XCTAssertEqual(second.status, 0, second.stderr)
        let lines = second.stdout.split(separator: "\n")
        XCTAssertGreaterThanOrEqual(Int(lines.first ?? "") ?? 0, size * 9 / 10,
                                    "a second open of the unchanged file kept the kernel's pages")
        XCTAssertEqual(lines.last.map { String($0.prefix(40)) }, expected)
    }

    /// Bytes of `path` in the kernel's page cache.
    private func resident(_ path: String) throws -> Int {
        let output = try succeed(["fincore", "--bytes", "--noheadings", "--output", "RES", path])
        return try XCTUnwrap(Int(output.trimmingCharacters(in: .whitespacesAndNewlines)), output)
    }

    // MARK: 6. 1 MiB reads and growing read-ahead ranges

    func testReadsOfOneMiBReachTheDaemonWhole() async throws {
        let seed = try SeedTree.make(texts: [:], largeFiles: ["a.bin": 8 << 20, "b.bin": 8 << 20])
        let (mount, _) = try await mountWithLogFile(seed: seed)
        let sim = try XCTUnwrap(boxsim)
        _ = try succeed(["stat", mount.path("a.bin")])

        // One 1 MiB read at 512 KiB, past the page cache: it straddles blocks 0 and 1, so its own blocks are
        // fetched in one range of 2 MiB. Cut into smaller reads, the first would fetch block 0 alone.
        var before = try lastSequence(sim)
        try succeed(["dd", "if=\(mount.path("a.bin"))", "of=/dev/null", "bs=1M", "count=1", "skip=524288",
                     "iflag=direct,skip_bytes", "status=none"])
        XCTAssertEqual(ranges(of: try downloads(after: before)), [0..<(2 << 20)])

        // One 4 MiB read at 512 KiB reaches the daemon as reads of at most 1 MiB: whatever their order, the one
        // at 512 KiB fetches from block 0, and never more than blocks 0 and 1 for itself.
        before = try lastSequence(sim)
        try succeed(["dd", "if=\(mount.path("b.bin"))", "of=/dev/null", "bs=4M", "count=1", "skip=524288",
                     "iflag=direct,skip_bytes", "status=none"])
        let fromStart = try XCTUnwrap(ranges(of: try downloads(after: before)).first)
        XCTAssertEqual(fromStart.lowerBound, 0)
        XCTAssertLessThanOrEqual(fromStart.count, 2 << 20, "a read larger than 1 MiB reached the daemon: \(fromStart)")
    }

    func testASequentialReadFetchesRangesThatGrowUpToTheCap() async throws {
        let size = 64 << 20
        let partSize = 8 << 20  // ReadAheadPlanner.Configuration.standard.partSize: one range request at most
        let seed = try SeedTree.make(texts: [:], largeFiles: ["stream.bin": size])
        let expected = try sha1(seed.appendingPathComponent("stream.bin").path)
        let (mount, _) = try await mountWithLogFile(seed: seed)
        let sim = try XCTUnwrap(boxsim)
        _ = try succeed(["stat", mount.path("stream.bin")])
        let before = try lastSequence(sim)
        XCTAssertEqual(try sha1(mount.path("stream.bin")), expected)

        let fetched = try downloads(after: before)
        let spans = ranges(of: fetched)
        let lengths = spans.map(\.count)
        let description = spans.map { "\($0.lowerBound >> 10)K+\($0.count >> 10)K" }.joined(separator: " ")
        XCTAssertEqual(spans.first?.lowerBound, 0, description)
        XCTAssertLessThanOrEqual(lengths.first ?? .max, 2 << 20, "the first range is small: \(description)")
        XCTAssertEqual(lengths.max(), partSize, "ranges grow to the cap: \(description)")
        XCTAssertTrue(lengths.allSatisfy { $0 <= partSize }, "no range beyond the cap: \(description)")
        XCTAssertTrue(spans.allSatisfy { $0.lowerBound % (1 << 20) == 0 }, "ranges start on blocks: \(description)")
        XCTAssertEqual(lengths.reduce(0, +), size, "each byte fetched once: \(description)")
        XCTAssertTrue(zip(spans, spans.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound },
                      "ranges neither overlap nor leave gaps: \(description)")
    }
}
