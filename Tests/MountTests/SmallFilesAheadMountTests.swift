import BoxTestSupport
import Foundation
import XCTest

/// A walk of small files in listing order (`grep -r`, `cp -r`, `tar c`) has the next files' content fetched ahead,
/// within its bound (`SmallFilesAhead`, `BlockStore.fetchAhead`): counted in boxsim's request log.
final class SmallFilesAheadMountTests: LoggedMountTestCase {
    static let fileCount = 50

    typealias SeededFile = WalkFolder.File

    /// Seeds `walk/` with 50 small files, mounts it, and answers its files in listing order.
    func mountWalkFolder(options: [String] = ["events=off"]) async throws -> (MountFixture, BoxSimProcess, [SeededFile]) {
        let mount = try await mountWithLog(
            seed: try SeedTree.make(texts: WalkFolder.texts(count: Self.fileCount)), options: options)
        let sim = try XCTUnwrap(boxsim)
        return (mount, sim, try WalkFolder.listed(mount, sim: sim, count: Self.fileCount, in: self))
    }

    /// Reads `files` one `cat` each, in the order given, checking the bytes; answers each read's milliseconds.
    @discardableResult
    func readTimed(_ files: [SeededFile], mount: MountFixture, expected: [String]? = nil) throws -> [Int] {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("walk-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let script = """
            cd "$M/walk" && : > "$OUT" && for f in \(files.map { "'\($0.name)'" }.joined(separator: " ")); do
              s=$(date +%s%N); cat "$f" >> "$OUT" || exit 1; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); done
            """
        let result = try Shell.bash(script, environment: ["M": mount.mountpoint.path, "OUT": output.path], timeout: 300)
        XCTAssertEqual(result.status, 0, "a read failed: \(result.stderr)")
        let read = try String(contentsOf: output, encoding: .utf8)
        XCTAssertEqual(read, (expected ?? files.map(\.text)).joined(), "the files' bytes, in order")
        return result.stdout.split(separator: "\n").compactMap { Int($0) }
    }

    /// Fails if the daemon answered any read with an error, even one the kernel retried and the program never saw
    /// (a failed read-ahead is read again).
    func assertNoReadFailed(file: StaticString = #filePath, line: UInt = #line) throws {
        let log = try String(contentsOf: try XCTUnwrap(daemonLog), encoding: .utf8)
        let failed = log.split(separator: "\n").filter { $0.contains("read failed") }
        XCTAssertTrue(failed.isEmpty, "reads answered with an error:\n\(failed.joined(separator: "\n"))", file: file, line: line)
    }

    /// Waits until boxsim has logged nothing for a second (at most 20 s).
    func waitUntilQuiet(_ sim: BoxSimProcess) throws {
        var last = try lastSequence(sim)
        for _ in 0..<20 {
            Thread.sleep(forTimeInterval: 1)
            let now = try lastSequence(sim)
            if now == last { return }
            last = now
        }
    }

    func downloads(after mark: Int, in sim: BoxSimProcess) throws -> [LoggedRequest] {
        try sim.requestLog().after(mark).filter { $0.path.hasPrefix("/dl/") }
    }

    /// `GET /2.0/files/{id}/content` requests logged after `mark`, by file id.
    func contentCalls(after mark: Int, in sim: BoxSimProcess) throws -> [String: Int] {
        let requests = try sim.requestLog().after(mark).matching("GET", "/2.0/files/[0-9]+/content")
        return Dictionary(grouping: requests) { $0.path.split(separator: "/")[2].description }.mapValues(\.count)
    }

    /// Every request answers 400 ms late: a read that waits for a request takes at least that, one served from what
    /// was fetched ahead a few milliseconds. Each file's content moves once, and most reads wait for nothing.
    func testAWalkOfSmallFilesHasTheirContentFetchedAheadOnceAndMostReadsWaitForNoRequest() async throws {
        let (mount, sim, files) = try await mountWalkFolder()
        let api = BoxSimAPI(sim)
        try api.addFault(["latency_ms": 400])
        let mark = try lastSequence(sim)
        let times = try readTimed(files, mount: mount)
        try api.clearFaults()
        try waitUntilQuiet(sim)

        let log = try sim.requestLog().after(mark).summary
        let fetched = try downloads(after: mark, in: sim)
        for file in files {
            XCTAssertEqual(fetched.filter { $0.bytesSent == file.size }.count, 1, "\(file.name) downloaded once:\n\(log)")
        }
        XCTAssertEqual(fetched.count, files.count, "no download but the files' own")
        let calls = try contentCalls(after: mark, in: sim)
        XCTAssertTrue(files.allSatisfy { calls[$0.id] == 1 }, "one content call per file:\n\(log)")
        // From the tenth file on the walk is well under way: without the fetch ahead every read takes ≥ 400 ms.
        let later = times.dropFirst(9)
        let quick = later.filter { $0 < 200 }.count
        XCTAssertGreaterThanOrEqual(quick * 10, later.count * 6,
                                    "most reads served from what was fetched ahead (ms per read: \(times))")
    }

    /// A walk that stops after 20 files leaves at most the window (8 files) fetched beyond where it stopped.
    func testAWalkThatStopsHasNoMoreThanTheBoundFetchedBeyondIt() async throws {
        let (mount, sim, files) = try await mountWalkFolder()
        let api = BoxSimAPI(sim)
        try api.addFault(["latency_ms": 50])
        let mark = try lastSequence(sim)
        let read = Array(files.prefix(20))
        try readTimed(read, mount: mount)
        try await Task.sleep(for: .seconds(2))
        try api.clearFaults()
        try waitUntilQuiet(sim)

        let fetched = try downloads(after: mark, in: sim)
        let beyond = files.dropFirst(read.count).filter { file in fetched.contains { $0.bytesSent == file.size } }
        let log = try sim.requestLog().after(mark).summary
        XCTAssertGreaterThan(beyond.count, 0, "files after the last read were fetched ahead:\n\(log)")
        XCTAssertLessThanOrEqual(beyond.count, 8, "at most the window beyond where the walk stopped:\n\(log)")
        XCTAssertEqual(Set(beyond.map(\.name)), Set(files[20..<(20 + beyond.count)].map(\.name)),
                       "the files right after it, in listing order")
        for file in files {
            XCTAssertLessThanOrEqual(fetched.filter { $0.bytesSent == file.size }.count, 1, "\(file.name) at most once")
        }
    }

    /// A file changed on Box while a walk is under way, whose old version is still being fetched ahead when the walk
    /// opens it: the walk reads the version the mount shows at the open, never the one fetched ahead.
    func testAFileChangedOnBoxMidWalkIsReadInTheVersionItsOpenSees() async throws {
        let (mount, sim, files) = try await mountWalkFolder(options: [])  // events on: the change shows within seconds
        let api = BoxSimAPI(sim)
        try cacheOutOfOrder(files.prefix(4), mount: mount)
        // Downloads slow enough that the fetches ahead are still under way when the change shows.
        try api.addFault(["path_prefix": "/dl/", "latency_ms": 8000])
        try readTimed(Array(files.prefix(4)), mount: mount)  // from the cache; the walk starts: 4…11 fetched ahead
        let changed = files[4]
        let newText = WalkFolder.text(name: changed.name, size: changed.size + 11).uppercased()
        try api.uploadVersion(of: changed.id, data: Data(newText.utf8))
        let path = mount.path("walk/" + changed.name)
        let deadline = Date().addingTimeInterval(20)
        while try succeed(["stat", "-c", "%s", path]).trimmingCharacters(in: .whitespacesAndNewlines)
            != String(changed.size + 11), Date() < deadline
        {
            try await Task.sleep(for: .milliseconds(200))
        }
        try api.clearFaults()
        let rest = Array(files[4..<12])
        let expected = rest.map { $0.id == changed.id ? newText : $0.text }
        let times = try readTimed(rest, mount: mount, expected: expected)
        // The new version is fetched at once: its read does not wait for the old version's 8 s download.
        XCTAssertLessThan(times.first ?? .max, 4000, "ms per read: \(times)")
        try assertNoReadFailed()
    }

    /// Reads `files` into the disk cache one `cat` each, in an order that is no walk (3, 1, 0, 2 for four files), so a
    /// walk from the first of them on starts with its fetches ahead as its first downloads.
    func cacheOutOfOrder(_ files: ArraySlice<SeededFile>, mount: MountFixture) throws {
        let order = [3, 1, 0, 2].map { files.startIndex + $0 }
        for index in order { try readTimed([files[index]], mount: mount) }
    }

    /// Wrong bytes on every download fetched ahead at the walk's start, the walk's first read joining one of them: every
    /// read still gets the right bytes and no error, and each file whose bytes were wrong is downloaded again, by its
    /// reader.
    func testWrongBytesFetchedAheadNeverReachTheReader() async throws {
        let (mount, sim, files) = try await mountWalkFolder()
        let api = BoxSimAPI(sim)
        try cacheOutOfOrder(files.prefix(4), mount: mount)
        // The walk's open of file 3 fetches 4…11 ahead and its open of 4 fetches 12: nine downloads, each a second
        // long, all wrong. The read of 4 joins its fetch, then downloads it itself (the tenth download: right bytes).
        try api.addFault(["path_prefix": "/dl/", "latency_ms": 1000, "count": 9])
        try api.addFault(["path_prefix": "/dl/", "corrupt_rate": 1, "count": 9])
        let mark = try lastSequence(sim)
        try readTimed(files, mount: mount)
        try api.clearFaults()
        try waitUntilQuiet(sim)

        let requests = try sim.requestLog().after(mark)
        let log = requests.summary
        let fetched = requests.filter { $0.path.hasPrefix("/dl/") }
        let corrupted = fetched.filter { $0.fault == "corrupt" }
        XCTAssertEqual(corrupted.count, 9, "nine wrong downloads:\n\(log)")
        for wrong in corrupted {
            XCTAssertEqual(fetched.filter { $0.bytesSent == wrong.bytesSent }.count, 2,
                           "the file of \(wrong.bytesSent) bytes, whose bytes were wrong, was downloaded again:\n\(log)")
        }
        try assertNoReadFailed()
    }

    /// 500s and connections cut mid-body on the downloads fetched ahead at the walk's start (the walk's first read
    /// joins one of them): every read gets the right bytes and no error.
    func testErrorsAndCutsDuringTheFetchAheadAreNoErrorForTheReader() async throws {
        let (mount, sim, files) = try await mountWalkFolder()
        let api = BoxSimAPI(sim)
        try cacheOutOfOrder(files.prefix(4), mount: mount)
        try api.addFault(["path_prefix": "/dl/", "latency_ms": 1000, "count": 8])
        try api.addFault(["path_prefix": "/dl/", "error_status": 500, "count": 4])
        try api.addFault(["path_prefix": "/dl/", "cut_phase": "response_body", "cut_after_bytes": 100, "skip": 4,
                          "count": 4])
        let mark = try lastSequence(sim)
        try readTimed(files, mount: mount)
        try api.clearFaults()
        try waitUntilQuiet(sim)

        let log = try sim.requestLog().after(mark).summary
        let faulted = try downloads(after: mark, in: sim).filter { $0.fault != nil }
        XCTAssertEqual(faulted.count, 8, "eight downloads failed:\n\(log)")
        try assertNoReadFailed()
    }
}
