import BoxTestSupport
import Foundation
import XCTest

/// A folder read file after file in listing order (`grep -r`, `cat *`) has the download locations of
/// its next files learnt ahead, one API call per file (the next small files' content moves ahead too, within a
/// window: `SmallFilesAheadMountTests`); other orders learn nothing ahead.
final class FolderWalkPrepareTests: MountTestCase {
    static let fileCount = 30

    typealias SeededFile = WalkFolder.File

    /// Seeds `walk/` with 30 small files, mounts it, and answers its files in readdir order.
    func mountWalkFolder() async throws -> (MountFixture, BoxSimProcess, [SeededFile]) {
        let mount = try await mountBoxSim(seed: try SeedTree.make(texts: WalkFolder.texts(count: Self.fileCount)))
        let sim = try XCTUnwrap(boxsim)
        return (mount, sim, try WalkFolder.listed(mount, sim: sim, count: Self.fileCount, in: self))
    }

    /// Reads `files` with one `cat` (which opens them one after the other) and checks the bytes.
    func readInOrder(_ files: [SeededFile], mount: MountFixture) throws {
        let paths = files.map { mount.path("walk/" + $0.name) }
        let read = try succeed(["cat"] + paths)
        let expected = files.map { "\($0.name)\n".padding(toLength: Int($0.size), withPad: ".", startingAt: 0) }
        XCTAssertEqual(read, expected.joined(), "the files' bytes, in order")
    }

    /// `GET /2.0/files/{id}/content` requests logged after `mark`, by file id.
    func contentRequests(after mark: Int, in sim: BoxSimProcess) throws -> [String: [LoggedRequest]] {
        let requests = try sim.requestLog().after(mark).matching("GET", "/2.0/files/[0-9]+/content")
        return Dictionary(grouping: requests) { $0.path.split(separator: "/")[2].description }
    }

    func downloads(after mark: Int, in sim: BoxSimProcess) throws -> [LoggedRequest] {
        try sim.requestLog().after(mark).filter { $0.path.hasPrefix("/dl/") }
    }

    func testAFolderReadInListingOrderHasItsNextLocationsLearntAheadOnce() async throws {
        let (mount, sim, files) = try await mountWalkFolder()
        let api = BoxSimAPI(sim)
        try api.addFault(["latency_ms": 20])  // every request: orders in the log follow the reads' order
        let mark = try lastSequence(sim)
        let read = Array(files.prefix(24))
        try readInOrder(read, mount: mount)
        try api.clearFaults()

        let contents = try contentRequests(after: mark, in: sim)
        let log = try sim.requestLog().after(mark).summary
        for file in read {
            XCTAssertEqual(contents[file.id]?.count, 1, "one /content request for \(file.name), none twice:\n\(log)")
        }
        for file in files.dropFirst(read.count) {
            XCTAssertLessThanOrEqual(contents[file.id]?.count ?? 0, 1, "\(file.name) (not read) asked at most once")
        }
        // Each file read was downloaded once; small files, so those after the last read may have been fetched ahead
        // (`SmallFilesAheadMountTests`), each at most once and no more than the window of 8 of them.
        let fetched = try downloads(after: mark, in: sim)
        for file in read {
            XCTAssertEqual(fetched.filter { $0.bytesSent == file.size }.count, 1, "\(file.name) downloaded once:\n\(log)")
        }
        let ahead = files.dropFirst(read.count).filter { file in fetched.contains { $0.bytesSent == file.size } }
        XCTAssertEqual(fetched.count, read.count + ahead.count, "no file downloaded twice:\n\(log)")
        XCTAssertLessThanOrEqual(ahead.count, 8)
        // The location of each later file was asked for before the file before it was downloaded,
        // i.e. before its own open (the run needs a few opens in order first).
        for (index, file) in read.enumerated().dropFirst(4) {
            let asked = try XCTUnwrap(contents[file.id]?.first?.seq, file.name)
            let previous = try XCTUnwrap(fetched.first { $0.bytesSent == read[index - 1].size }?.seq)
            XCTAssertLessThan(asked, previous, "\(file.name)'s location was learnt ahead:\n\(log)")
        }
    }

    func testAReadOfAFileWhoseLocationIsBeingLearntWaitsForItInsteadOfAskingAgain() async throws {
        let (mount, sim, files) = try await mountWalkFolder()
        let api = BoxSimAPI(sim)
        // Slow location answers, fast downloads: the reads catch up with the files being prepared.
        try api.addFault(["path_prefix": "/2.0/files/", "method": "GET", "latency_ms": 400])
        let mark = try lastSequence(sim)
        try readInOrder(files, mount: mount)
        try api.clearFaults()

        let contents = try contentRequests(after: mark, in: sim)
        let log = try sim.requestLog().after(mark).summary
        XCTAssertEqual(contents.count, files.count)
        for file in files {
            XCTAssertEqual(contents[file.id]?.count, 1, "one /content request for \(file.name):\n\(log)")
        }
        let fetched = try downloads(after: mark, in: sim)
        XCTAssertEqual(fetched.count, files.count, "one download per file")
        // The next files' locations were being learnt ahead: most of them were answered before the
        // fourth file's download (without preparation, only the first four would have been).
        let fourth = try XCTUnwrap(fetched.first { $0.bytesSent == files[3].size }?.seq)
        let answeredBefore = contents.values.joined().filter { $0.seq < fourth }.count
        XCTAssertGreaterThan(answeredBefore, 10, "locations answered before the fourth file's download:\n\(log)")
    }

    func testFilesReadInAShuffledOrderHaveNothingLearntAhead() async throws {
        let (mount, sim, files) = try await mountWalkFolder()
        let mark = try lastSequence(sim)
        // Every 7th file, wrapping: never two neighbours in listing order one after the other.
        let read = (0..<15).map { files[($0 * 7) % Self.fileCount] }
        try readInOrder(read, mount: mount)

        let contents = try contentRequests(after: mark, in: sim)
        let log = try sim.requestLog().after(mark).summary
        XCTAssertEqual(Set(contents.keys), Set(read.map(\.id)), "locations asked only for the files read:\n\(log)")
        XCTAssertTrue(contents.values.allSatisfy { $0.count == 1 }, "one /content request per file read:\n\(log)")
        let fetched = try downloads(after: mark, in: sim)
        XCTAssertEqual(fetched.map(\.bytesSent).sorted(), read.map(\.size).sorted(), "bytes sent: the read files'")
    }
}
