import BoxTestSupport
import Foundation
import XCTest

/// What reads cost on the wire: one download-location call per file version (however its first
/// ranges start, however many files a walk learns ahead), and no byte downloaded twice by readers
/// that keep reading, even when their read-ahead together is far beyond the daemon's memory.
final class ReadCostTests: MountTestCase {
    /// `GET /2.0/files/{id}/content` calls logged after `mark`, by file id.
    func locationCalls(after mark: Int, in sim: BoxSimProcess) throws -> [String: Int] {
        let calls = try sim.requestLog().after(mark).matching("GET", "/2.0/files/[0-9]+/content")
        return Dictionary(grouping: calls) { $0.path.split(separator: "/")[2].description }.mapValues(\.count)
    }

    /// A `cat` and readers of other parts of the same file, all starting at once while the API is slow to
    /// say where the content is: their first ranges start together and share one location call.
    func testReadersStartingTogetherOnAFileAskForItsLocationOnce() async throws {
        let seed = try SeedTree.make(largeFiles: ["big.bin": 48 << 20])
        let mount = try await mountBoxSim(seed: seed)
        let sim = try XCTUnwrap(boxsim)
        let id = try XCTUnwrap(try BoxSimAPI(sim).tree()["big.bin"]).id
        _ = try succeed(["ls", "-l", mount.path("")])
        try BoxSimAPI(sim).addFault(["path_prefix": "/2.0/files/\(id)/content", "method": "GET", "latency_ms": 300])
        let mark = try lastSequence(sim)
        let script = "sha1sum \"$F\" & " + [7, 19, 33, 45].map { "dd if=\"$F\" of=/dev/null bs=1M skip=\($0) count=2 status=none & " }
            .joined() + "wait"
        let result = try Shell.bash(script, environment: ["F": mount.path("big.bin")], timeout: 120)
        XCTAssertEqual(result.status, 0, result.stderr)
        try BoxSimAPI(sim).clearFaults()
        XCTAssertTrue(result.stdout.hasPrefix(try sha1(seed.appendingPathComponent("big.bin").path)), "the bytes")
        let calls = try locationCalls(after: mark, in: sim)
        let log = try sim.requestLog().after(mark).summary
        XCTAssertEqual(calls, [id: 1], "one location call:\n\(log)")
        XCTAssertEqual(try downloadedBytes(after: mark, in: sim), 48 << 20, "every byte once")
    }

    /// More files than the mount remembers locations for: each is still asked for once, learnt ahead.
    func testAWalkThroughAFolderOfManyFilesAsksOnceForEachLocation() async throws {
        let count = 1_300
        var texts: [String: String] = [:]
        for index in 0..<count { texts[String(format: "walk/f%04d.txt", index)] = "file \(index)\n" }
        let mount = try await mountBoxSim(seed: try SeedTree.make(texts: texts))
        let sim = try XCTUnwrap(boxsim)
        let names = try succeed(["ls", "-f", mount.path("walk")]).split(separator: "\n").map(String.init)
            .filter { $0 != "." && $0 != ".." }
        XCTAssertEqual(names.count, count)
        let mark = try lastSequence(sim)
        // One `cat` opens the files one after another, in listing order (xargs: a few long command lines).
        let list = try makeList(names.map { mount.path("walk/" + $0) })
        let read = try Shell.bash("xargs -0 cat < \"$LIST\"", environment: ["LIST": list.path], timeout: 300)
        XCTAssertEqual(read.status, 0, read.stderr)
        XCTAssertEqual(read.stdout, names.map { "file \(Int($0.dropFirst().prefix(4))!)\n" }.joined())
        let calls = try locationCalls(after: mark, in: sim)
        XCTAssertEqual(calls.count, count, "every file's location asked for")
        let repeated = calls.filter { $0.value > 1 }
        XCTAssertTrue(repeated.isEmpty, "\(repeated.count) files asked more than once")
    }

    func makeList(_ paths: [String]) throws -> URL {
        let list = FileManager.default.temporaryDirectory.appendingPathComponent("list-\(UUID().uuidString)")
        try Data(paths.joined(separator: "\0").utf8).write(to: list)
        addTeardownBlock { try? FileManager.default.removeItem(at: list) }
        return list
    }

    /// One `cat` of a long file keeps reading ahead to its end: its ranges stay whole parts (up to 8 MiB), not one
    /// block per read. (Blocks a reader took from their fetch before they reached memory once stayed counted as
    /// unread, took read-ahead's budget for good, and the rest of the file came 1 MiB per request.) 40 MiB of
    /// memory: read-ahead's budget, 30 MiB, is little above what one reader reads ahead, so a leak shows soon.
    func testASequentialReadKeepsReadingAheadToTheEnd() async throws {
        let size = 192 << 20
        let seed = try SeedTree.make(largeFiles: ["long.bin": size])
        let mount = try await mountBoxSim(seed: seed, environment: ["BOXFS_TEST_READ_MEMORY": String(40 << 20)])
        let sim = try XCTUnwrap(boxsim)
        _ = try succeed(["ls", "-l", mount.path("")])
        let mark = try lastSequence(sim)
        // `cat`, a reader as fast as the mount: it catches up with the blocks in flight (a slower one, `sha1sum`,
        // left the race that leaked unread blocks aside).
        let read = try Shell.bash("cat \"$F\" > /dev/null", environment: ["F": mount.path("long.bin")], timeout: 300)
        XCTAssertEqual(read.status, 0, read.stderr)
        let ranges = try sim.requestLog().after(mark).filter { $0.path.hasPrefix("/dl/") }
        let sum = try succeed(["sha1sum", mount.path("long.bin")])
        XCTAssertTrue(sum.hasPrefix(try sha1(seed.appendingPathComponent("long.bin").path)), "the bytes")
        XCTAssertEqual(ranges.reduce(0) { $0 + $1.bytesSent }, Int64(size), "every byte once")
        let small = ranges.filter { $0.bytesSent <= 1 << 20 }.count
        XCTAssertLessThanOrEqual(small, size / (16 << 20), "\(ranges.count) ranges, \(small) of one block or less")
    }

    /// 8 readers, 24 MiB read ahead each at most, with 8 MiB of memory for fetched blocks.
    func readInParallelBeyondTheMemoryLimit(options: [String]) async throws {
        let files = (0..<8).map { "big/f\($0).bin" }
        let size = 24 << 20
        let seed = try SeedTree.make(largeFiles: Dictionary(uniqueKeysWithValues: files.map { ($0, size) }))
        let mount = try await mountBoxSim(
            seed: seed, options: options, environment: ["BOXFS_TEST_READ_MEMORY": String(8 << 20)])
        let sim = try XCTUnwrap(boxsim)
        _ = try succeed(["ls", "-l", mount.path("big")])
        let mark = try lastSequence(sim)
        let script = files.map { "sha1sum \"$M/\($0)\" &" }.joined(separator: "\n") + "\nwait"
        let result = try Shell.bash(script, environment: ["M": mount.mountpoint.path], timeout: 300)
        XCTAssertEqual(result.status, 0, result.stderr)
        for file in files {
            let expected = try sha1(seed.appendingPathComponent(file).path)
            XCTAssertTrue(result.stdout.contains(expected), "\(file) read right")
        }
        let read = Int64(files.count * size)
        let sent = try downloadedBytes(after: mark, in: sim)
        XCTAssertGreaterThanOrEqual(sent, read)
        let twice = try askedTwice(after: mark, in: sim)
        XCTAssertLessThanOrEqual(Double(sent), Double(read) * 1.01, "bytes sent \(sent) for \(read) read; asked twice: \(twice)")
    }

    /// The downloads after `mark` whose ranges overlap an earlier one of the same file, with what was sent.
    func askedTwice(after mark: Int, in sim: BoxSimProcess) throws -> [String] {
        var seen: [String: [Range<Int64>]] = [:]
        var twice: [String] = []
        for request in try sim.requestLog().after(mark) where request.path.hasPrefix("/dl/") {
            guard let range = request.byteRange else { continue }
            if seen[request.path, default: []].contains(where: { $0.overlaps(range) }) {
                twice.append("\(request.path) \(request.range ?? "") status \(request.status) sent \(request.bytesSent) \(request.fault ?? "")")
            }
            seen[request.path, default: []].append(range)
        }
        return twice
    }

    func testParallelReadersBeyondTheMemoryLimitFetchNoByteTwice() async throws {
        try await readInParallelBeyondTheMemoryLimit(options: [])
    }

    func testParallelReadersBeyondTheMemoryLimitFetchNoByteTwiceWithoutADiskCache() async throws {
        try await readInParallelBeyondTheMemoryLimit(options: ["cache=off"])
    }
}
