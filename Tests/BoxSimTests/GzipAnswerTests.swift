import BoxTestSupport
import Foundation
import XCTest

/// JSON answers go gzip-compressed to a client that asks (`Accept-Encoding: gzip`), as Box's do; content never.
final class GzipAnswerTests: XCTestCase {
    func testAListingIsCompressedOnlyWhenAskedAndDecodesToTheSameJSON() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let folder = try fixture.id(of: "many")
        let path = "/2.0/folders/\(folder)/items?limit=1000"
        let plain = try fixture.get(path)
        XCTAssertEqual(plain.status, 200)
        XCTAssertNil(plain.headers["content-encoding"], "no Accept-Encoding: an answer as it is")

        let compressed = try fixture.get(path, headers: ["Accept-Encoding": "gzip"])
        XCTAssertEqual(compressed.status, 200)
        XCTAssertEqual(compressed.headers["content-encoding"], "gzip")
        XCTAssertEqual(compressed.headers["content-length"], String(compressed.body.count))
        XCTAssertLessThan(compressed.body.count * 3, plain.body.count, "a listing shrinks several times")
        XCTAssertEqual(try gunzip(compressed.body), plain.body)

        let refused = try fixture.get(path, headers: ["Accept-Encoding": "gzip;q=0, identity"])
        XCTAssertNil(refused.headers["content-encoding"], "gzip;q=0 refuses gzip")

        let log = try fixture.sim.requestLog().filter { $0.path == "/2.0/folders/\(folder)/items" }
        XCTAssertEqual(log.map(\.bytesSent), [Int64(plain.body.count), Int64(compressed.body.count), Int64(plain.body.count)],
                       "the request log counts the bytes on the wire")
    }

    func testContentIsNeverCompressed() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let fileID = try fixture.id(of: "big.bin")
        let redirect = try fixture.get("/2.0/files/\(fileID)/content", headers: ["Accept-Encoding": "gzip"])
        let location = try XCTUnwrap(redirect.headers["location"])
        let seedBytes = try Data(contentsOf: fixture.seed.appendingPathComponent("big.bin"))
        let whole = try Curl.run(location, headers: ["Accept-Encoding": "gzip"])
        XCTAssertNil(whole.headers["content-encoding"])
        XCTAssertEqual(whole.body, seedBytes)
        let range = try Curl.run(location, headers: ["Accept-Encoding": "gzip", "Range": "bytes=10-19"])
        XCTAssertNil(range.headers["content-encoding"])
        XCTAssertEqual(range.body, seedBytes[10..<20])
    }

    private func gunzip(_ data: Data) throws -> Data {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gunzip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("body.gz")
        try data.write(to: file)
        _ = try Curl.runProcess("/bin/gzip", ["-d", file.path])
        return try Data(contentsOf: directory.appendingPathComponent("body"))
    }
}
