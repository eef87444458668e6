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

    /// Several ranges: one 206 `multipart/byteranges` body (RFC 9110 §14.6), parts in the order asked, each with
    /// its own Content-Range; ranges beyond the end are dropped; a single satisfiable one is a plain 206.
    func testSeveralRangesAnswerMultipartByteranges() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let fileID = try fixture.id(of: "big.bin")
        let location = try XCTUnwrap(try fixture.get("/2.0/files/\(fileID)/content").headers["location"])
        let seedBytes = try Data(contentsOf: fixture.seed.appendingPathComponent("big.bin"))
        let size = seedBytes.count
        let answer = try Curl.run(location, headers: ["Range": "bytes=2000000-2000009, 5-9,-4"])
        XCTAssertEqual(answer.status, 206)
        let contentType = try XCTUnwrap(answer.headers["content-type"])
        XCTAssertTrue(contentType.hasPrefix("multipart/byteranges; boundary="), contentType)
        XCTAssertNil(answer.headers["content-range"], "the parts carry the ranges")
        XCTAssertEqual(answer.headers["content-length"], String(answer.body.count))
        let boundary = String(contentType.dropFirst("multipart/byteranges; boundary=".count))
        let parts = try Self.multipartParts(answer.body, boundary: boundary)
        XCTAssertEqual(parts.map(\.contentRange), ["bytes 2000000-2000009/\(size)", "bytes 5-9/\(size)",
                                                   "bytes \(size - 4)-\(size - 1)/\(size)"])
        XCTAssertEqual(parts.map(\.body), [seedBytes[2_000_000..<2_000_010], seedBytes[5..<10], seedBytes.suffix(4)])
        XCTAssertTrue(parts.allSatisfy { $0.contentType == "application/octet-stream" })

        let oneLeft = try Curl.run(location, headers: ["Range": "bytes=0-1,\(size)-"])
        XCTAssertEqual(oneLeft.status, 206)
        XCTAssertEqual(oneLeft.headers["content-range"], "bytes 0-1/\(size)")
        XCTAssertEqual(oneLeft.body, seedBytes.prefix(2))
        XCTAssertEqual(try Curl.run(location, headers: ["Range": "bytes=\(size)-,\(size + 5)-"]).status, 416)
        XCTAssertEqual(try Curl.run(location, headers: ["Range": "bytes=0-1,x-y"]).status, 416)
        let logged = try XCTUnwrap(try fixture.sim.requestLog().first { $0.range == "bytes=2000000-2000009, 5-9,-4" })
        XCTAssertEqual(logged.bytesSent, Int64(answer.body.count))
    }

    struct Part {
        var contentType: String?
        var contentRange: String?
        var body: Data
    }

    /// Splits a multipart body on `--boundary` lines (RFC 2046), checking the closing delimiter.
    static func multipartParts(_ body: Data, boundary: String) throws -> [Part] {
        let delimiter = Data("--\(boundary)".utf8)
        var parts: [Part] = []
        var rest = body[...]
        guard rest.starts(with: delimiter) else { throw FixtureError.missing("opening delimiter") }
        rest = rest.dropFirst(delimiter.count)
        while rest.starts(with: Data("\r\n".utf8)) {
            rest = rest.dropFirst(2)
            let headerEnd = try XCTUnwrap(rest.range(of: Data("\r\n\r\n".utf8)))
            let headers = String(decoding: rest[..<headerEnd.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
            rest = rest[headerEnd.upperBound...]
            let next = try XCTUnwrap(rest.range(of: Data("\r\n".utf8) + delimiter))
            let field = { (name: String) in
                headers.first { $0.lowercased().hasPrefix(name + ":") }.map {
                    String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces)
                }
            }
            parts.append(Part(contentType: field("content-type"), contentRange: field("content-range"),
                              body: Data(rest[..<next.lowerBound])))
            rest = rest[next.upperBound...]
        }
        XCTAssertEqual(Data(rest), Data("--\r\n".utf8), "closing delimiter")
        return parts
    }
}
