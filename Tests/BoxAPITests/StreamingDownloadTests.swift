import BoxAuth
import BoxTestSupport
import CurlHTTP
import Foundation
import Synchronization
import XCTest

@testable import BoxAPI

/// Collects what a streaming download delivers, by file offset.
final class OffsetCollector: DownloadSink {
    let pieces = Mutex<[(offset: Int64, bytes: Data)]>([])

    func receive(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> Bool {
        pieces.withLock { $0.append((offset, Data(bytes))) }
        return true
    }

    /// The pieces laid out from `start`; nil if there is a gap or an overlap.
    func contiguous(from start: Int64) -> Data? {
        var result = Data()
        for piece in pieces.withLock({ $0 }) {
            guard piece.offset == start + Int64(result.count) else { return nil }
            result.append(piece.bytes)
        }
        return result
    }
}

/// `download(fileID:range:into:)`: the bytes of a range, at their file offsets, as they arrive.
final class StreamingDownloadTests: BoxSimClientTestCase {
    func testARangeStreamsInPiecesAtItsFileOffsets() async throws {
        let size = 5 * 1024 * 1024 + 17
        let seed = try SeedTree.make(largeFiles: ["big.bin": size])
        let expected = try Data(contentsOf: seed.appendingPathComponent("big.bin"))
        let (sim, client) = try await start(seed: seed)
        let file = try await client.item(atPath: "/big.bin")

        let sink = OffsetCollector()
        let range: Range<Int64> = 1_000_000..<4_500_000
        let delivered = try await client.download(fileID: file.id, range: range, into: sink)
        XCTAssertEqual(delivered, Int64(range.count))
        XCTAssertEqual(sink.contiguous(from: range.lowerBound), expected.subdata(in: 1_000_000..<4_500_000))
        XCTAssertGreaterThan(sink.pieces.withLock { $0.count }, 1, "delivered as it arrived")

        let tail = OffsetCollector()
        let tailRange = Int64(size - 10)..<Int64(size + 100)
        let tailDelivered = try await client.download(fileID: file.id, range: tailRange, into: tail)
        XCTAssertEqual(tailDelivered, 10, "fewer only at the end of the file")
        XCTAssertEqual(tail.contiguous(from: Int64(size - 10)), expected.suffix(10))

        let beyond = OffsetCollector()
        let none = try await client.download(fileID: file.id, range: Int64(size + 5)..<Int64(size + 50), into: beyond)
        XCTAssertEqual(none, 0)
        XCTAssertTrue(beyond.pieces.withLock { $0.isEmpty })
    }

    /// A server that ignores `Range` answers 200 with the whole file: only the range reaches the sink.
    func testAWholeFileAnswerIsCutToTheRange() {
        let sink = OffsetCollector()
        let adapter = RangeBodyAdapter(range: 10..<20, sink: sink)
        adapter.responseStarted(status: 200, headers: HTTPHeaders())
        let body = Data((0..<32).map { UInt8($0) })
        for start in stride(from: 0, to: 32, by: 7) {
            body[start..<min(start + 7, 32)].withUnsafeBytes { XCTAssertTrue(adapter.receive($0)) }
        }
        XCTAssertEqual(sink.contiguous(from: 10), body.subdata(in: 10..<20))
        XCTAssertEqual(adapter.delivered, 10)
    }

    func testA206StartsWhereItsContentRangeSaysAndARetryStartsOver() {
        let sink = OffsetCollector()
        let adapter = RangeBodyAdapter(range: 100..<110, sink: sink)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Range", value: "bytes 100-109/500")
        adapter.responseStarted(status: 206, headers: headers)
        Data(repeating: 1, count: 4).withUnsafeBytes { XCTAssertTrue(adapter.receive($0)) }
        adapter.responseStarted(status: 206, headers: headers)
        Data(repeating: 2, count: 10).withUnsafeBytes { XCTAssertTrue(adapter.receive($0)) }
        let offsets = sink.pieces.withLock { $0.map(\.offset) }
        XCTAssertEqual(offsets, [100, 100], "the retried response delivers from the start again")
        XCTAssertEqual(adapter.delivered, 10)
        XCTAssertEqual(RangeBodyAdapter.firstByte(ofContentRange: "bytes 7-9/10"), 7)
        XCTAssertNil(RangeBodyAdapter.firstByte(ofContentRange: "bytes */10"))
    }
}

/// A remembered download location saves the API call for the next ranges of the same file version.
final class DownloadLocationTests: BoxSimClientTestCase {
    /// How many requests for `path` boxsim logged, once at least `expected` are there (or after 5 s).
    private func logged(_ sim: BoxSimProcess, path: String, expected: Int) async throws -> Int {
        try await logged(sim, atLeast: expected) { $0.path == path }.count
    }

    func testTheNextRangesOfAFileSkipTheAPICallAndARefusedLocationIsRenewed() async throws {
        let seed = try SeedTree.make(largeFiles: ["big.bin": 3 << 20])
        let expected = try Data(contentsOf: seed.appendingPathComponent("big.bin"))
        let (sim, client) = try await start(seed: seed)
        let file = try await client.item(atPath: "/big.bin")
        let locations = DownloadLocations()
        let contentPath = "/2.0/files/\(file.id)/content"
        let before = try sim.requestLog().filter { $0.path == contentPath }.count

        for start in stride(from: Int64(0), to: 3 << 20, by: 1 << 20) {
            let sink = OffsetCollector()
            _ = try await client.download(
                fileID: file.id, range: start..<start + (1 << 20), into: sink, locations: locations, version: "v1")
            XCTAssertEqual(sink.contiguous(from: start), expected.subdata(in: Int(start)..<Int(start) + (1 << 20)))
        }
        let afterThree = try await logged(sim, path: contentPath, expected: before + 1)
        XCTAssertEqual(afterThree, before + 1, "one API call")

        let otherVersion = OffsetCollector()
        _ = try await client.download(
            fileID: file.id, range: 0..<10, into: otherVersion, locations: locations, version: "v2")
        let afterOther = try await logged(sim, path: contentPath, expected: before + 2)
        XCTAssertEqual(afterOther, before + 2, "another version never reuses the location")

        locations.remember(sim.baseURL + "/dl/expired-token", for: file.id + "\nv1")
        let renewed = OffsetCollector()
        _ = try await client.download(
            fileID: file.id, range: 5..<15, into: renewed, locations: locations, version: "v1")
        XCTAssertEqual(renewed.contiguous(from: 5), expected.subdata(in: 5..<15), "a refused location is renewed")
        let afterRenewal = try await logged(sim, path: contentPath, expected: before + 3)
        XCTAssertEqual(afterRenewal, before + 3)
    }

    func testAPreparedDownloadNeedsOnlyTheLocationRequest() async throws {
        let seed = try SeedTree.make(files: ["small.txt": Data("a small file\n".utf8)])
        let (sim, client) = try await start(seed: seed)
        let file = try await client.item(atPath: "/small.txt")
        let locations = DownloadLocations()
        try await client.prepareDownload(fileID: file.id, version: "v", locations: locations)
        let contentPath = "/2.0/files/\(file.id)/content"
        let preparedCalls = try await logged(sim, path: contentPath, expected: 1)
        XCTAssertEqual(preparedCalls, 1)
        XCTAssertFalse(try sim.requestLog().contains { $0.path.hasPrefix("/dl/") }, "no content moves while preparing")

        let sink = OffsetCollector()
        let count = try await client.download(
            fileID: file.id, range: 0..<13, into: sink, locations: locations, version: "v")
        XCTAssertEqual(count, 13)
        XCTAssertEqual(sink.contiguous(from: 0), Data("a small file\n".utf8))
        try await Task.sleep(for: .milliseconds(200))
        let calls = try sim.requestLog().filter { $0.path == contentPath }.count
        XCTAssertEqual(calls, 1, "the read itself is one request")
    }

    func testRangesOfAFileStartedTogetherAskForItsLocationOnce() async throws {
        let seed = try SeedTree.make(largeFiles: ["big.bin": 8 << 20])
        let expected = try Data(contentsOf: seed.appendingPathComponent("big.bin"))
        let (sim, client) = try await start(seed: seed)
        let file = try await client.item(atPath: "/big.bin")
        let api = BoxSimAPI(sim)
        // A slow location answer: every range starts before the first learns where the content is.
        try api.addFault(["path_prefix": "/2.0/files/\(file.id)/content", "method": "GET", "latency_ms": 300])
        let locations = DownloadLocations()
        let contentPath = "/2.0/files/\(file.id)/content"
        let received = try await withThrowingTaskGroup(of: (Int64, Data?).self) { group in
            for start in stride(from: Int64(0), to: 8 << 20, by: 1 << 20) {
                group.addTask {
                    let sink = OffsetCollector()
                    _ = try await client.download(
                        fileID: file.id, range: start..<start + (1 << 20), into: sink, locations: locations, version: "v")
                    return (start, sink.contiguous(from: start))
                }
            }
            return try await group.reduce(into: [Int64: Data?]()) { $0[$1.0] = $1.1 }
        }
        try api.clearFaults()
        for (start, data) in received {
            XCTAssertEqual(data, expected.subdata(in: Int(start)..<Int(start) + (1 << 20)), "range at \(start)")
        }
        let calls = try await logged(sim, path: contentPath, expected: 1)
        try await Task.sleep(for: .milliseconds(200))
        XCTAssertEqual(try sim.requestLog().filter { $0.path == contentPath }.count, 1, "one API call for 8 ranges")
        XCTAssertEqual(calls, 1)
    }

    func testLocationsLearntAheadStayUntilUsedWhileUsedOnesMakeRoom() {
        let locations = DownloadLocations(capacity: 3)
        locations.remember("https://dl.test/used", for: "used")
        XCTAssertNotNil(locations.location(for: "used"))
        for key in ["a", "b", "c", "d"] { locations.remember("https://dl.test/" + key, for: key, ahead: true) }
        XCTAssertNil(locations.location(for: "used"), "a used location made room")
        for key in ["a", "b", "c", "d"] {
            XCTAssertEqual(locations.location(for: key), "https://dl.test/" + key, "\(key), learnt ahead, is kept until used")
        }
        locations.remember("https://dl.test/e", for: "e")
        XCTAssertEqual(locations.count, 3, "once used, they make room again")
        XCTAssertEqual(locations.location(for: "e"), "https://dl.test/e")
    }

    func testLocationsExpire() async throws {
        let locations = DownloadLocations(lifetime: .milliseconds(50), capacity: 2)
        locations.remember("https://dl.test/a", for: "a")
        XCTAssertEqual(locations.location(for: "a"), "https://dl.test/a")
        try await Task.sleep(for: .milliseconds(80))
        XCTAssertNil(locations.location(for: "a"))
        for key in ["x", "y", "z"] {
            locations.remember("https://dl.test/" + key, for: key)
            try await Task.sleep(for: .milliseconds(2))
        }
        XCTAssertEqual(locations.count, 2)
        XCTAssertNil(locations.location(for: "x"), "the oldest made room")
        XCTAssertEqual(locations.location(for: "z"), "https://dl.test/z")
    }
}
