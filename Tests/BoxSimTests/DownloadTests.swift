import BoxTestSupport
import Foundation
import XCTest

/// `GET /2.0/files/{id}/content` → 302 → `/dl/<token>` with Range support, and its request-log records.
final class DownloadTests: XCTestCase {
    func testContentRedirectsToSignedDownloadURLServingExactBytes() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let fileID = try fixture.id(of: "big.bin")
        let redirect = try fixture.get("/2.0/files/\(fileID)/content")
        XCTAssertEqual(redirect.status, 302)
        let location = try XCTUnwrap(redirect.headers["location"])
        XCTAssertTrue(location.hasPrefix(fixture.sim.baseURL + "/dl/"), location)
        XCTAssertFalse(location.contains(fileID), "the download token is opaque")

        let seedBytes = try Data(contentsOf: fixture.seed.appendingPathComponent("big.bin"))
        let whole = try Curl.run(location)
        XCTAssertEqual(whole.status, 200)
        XCTAssertEqual(whole.body, seedBytes)

        let middle = try Curl.run(location, headers: ["Range": "bytes=1000000-1000099"])
        XCTAssertEqual(middle.status, 206)
        XCTAssertEqual(middle.headers["content-range"], "bytes 1000000-1000099/\(seedBytes.count)")
        XCTAssertEqual(middle.body, seedBytes[1_000_000..<1_000_100])

        let open = try Curl.run(location, headers: ["Range": "bytes=\(seedBytes.count - 10)-"])
        XCTAssertEqual(open.status, 206)
        XCTAssertEqual(open.body, seedBytes.suffix(10))

        let suffix = try Curl.run(location, headers: ["Range": "bytes=-7"])
        XCTAssertEqual(suffix.status, 206)
        XCTAssertEqual(suffix.body, seedBytes.suffix(7))

        let beyond = try Curl.run(location, headers: ["Range": "bytes=\(seedBytes.count)-"])
        XCTAssertEqual(beyond.status, 416)
        XCTAssertEqual(beyond.headers["content-range"], "bytes */\(seedBytes.count)")
        XCTAssertEqual(try Curl.run(location, headers: ["Range": "bytes=9-3"]).status, 416)
    }

    func testTamperedDownloadTokenIsRejected() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let fileID = try fixture.id(of: "hello.txt")
        let location = try XCTUnwrap(try fixture.get("/2.0/files/\(fileID)/content").headers["location"])
        XCTAssertEqual(try Curl.run(location).text, "hello world\n")
        // Change a character in the middle of the signature: the last one of a 32-byte HMAC's
        // base64url form carries only padding bits, so changing it may leave the bytes equal.
        var characters = Array(location)
        let index = characters.count - 10
        characters[index] = characters[index] == "A" ? "Q" : "A"
        let tampered = String(characters)
        XCTAssertEqual(try Curl.run(tampered).status, 404)
        XCTAssertEqual(try Curl.run(fixture.sim.baseURL + "/dl/garbage").status, 404)
    }

    func testRequestLogRecordsRangeBytesSentWithoutToken() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let fileID = try fixture.id(of: "big.bin")
        let location = try XCTUnwrap(try fixture.get("/2.0/files/\(fileID)/content").headers["location"])
        let path = try XCTUnwrap(URL(string: location)?.path)
        _ = try Curl.run(location, headers: ["Range": "bytes=4096-8191"])

        let log = try fixture.sim.requestLog()
        let download = try XCTUnwrap(log.last { $0.path == path })
        XCTAssertEqual(download.status, 206)
        XCTAssertEqual(download.bytesSent, 4096)
        XCTAssertEqual(download.range, "bytes=4096-8191")
        XCTAssertFalse(download.authorization)
        let content = try XCTUnwrap(log.last { $0.path == "/2.0/files/\(fileID)/content" })
        XCTAssertEqual(content.status, 302)
        XCTAssertTrue(content.authorization)
        XCTAssertNotNil(content.userID)
        XCTAssertEqual(log.map(\.seq), Array(1...log.count), "seq counts up from 1")
        let raw = try String(contentsOf: fixture.sim.dataDirectory.appendingPathComponent("requests.jsonl"),
                             encoding: .utf8)
        XCTAssertFalse(raw.contains(fixture.sim.developerToken), "the token never reaches the log")
    }
}
