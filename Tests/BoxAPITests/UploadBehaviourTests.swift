import CurlHTTP
import Foundation
import XCTest

@testable import BoxAPI

/// Direct uploads: multipart layout, digests, If-Match, no blind retries.
final class UploadBehaviourTests: XCTestCase {
    private let content = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })

    func testNewFileIsMultipartWithAttributesFirstAndSHA1() async throws {
        let file = try temporaryFile(content)
        defer { try? FileManager.default.removeItem(at: file) }
        let sha1 = FileDigest.sha1(content).hex
        let json = filesJSON(id: "9", name: "a b.bin", size: content.count, sha1: sha1)
        let http = ScriptedHTTP { _, _ in ScriptedHTTP.response(201, json: json) }
        let modified = Date(timeIntervalSince1970: 1_360_025_872.75)
        let item = try await BoxClient.scripted(http).uploadFile(
            path: file.path, name: "a b.bin", parentID: "11446498", contentModifiedAt: modified)
        XCTAssertEqual(item.id, "9")
        XCTAssertEqual(item.sha1, sha1)

        let request = try XCTUnwrap(http.requests.first)
        XCTAssertEqual(request.method, .post)
        XCTAssertTrue(request.url.hasPrefix("https://api.test/api/2.0/files/content?fields="), request.url)
        XCTAssertEqual(request.headers["Content-MD5"], sha1)
        let contentType = try XCTUnwrap(request.headers["Content-Type"])
        let boundary = try XCTUnwrap(contentType.components(separatedBy: "boundary=").last)
        XCTAssertTrue(contentType.hasPrefix("multipart/form-data; boundary="))

        let body = try bodyBytes(request.body)
        let attributesAt = try XCTUnwrap(body.range(of: Data("name=\"attributes\"".utf8)))
        let fileAt = try XCTUnwrap(body.range(of: Data("name=\"file\"".utf8)))
        XCTAssertLessThan(attributesAt.lowerBound, fileAt.lowerBound, "attributes must come before file")
        let text = String(decoding: body.prefix(upTo: fileAt.lowerBound), as: UTF8.self)
        XCTAssertTrue(text.contains(#""content_modified_at":"2013-02-05T00:57:52Z""#), text)
        XCTAssertTrue(text.contains(#""parent":{"id":"11446498"}"#), text)
        XCTAssertTrue(body.range(of: content) != nil, "file bytes are in the body verbatim")
        XCTAssertEqual(body.suffix(boundary.count + 8), Data("\r\n--\(boundary)--\r\n".utf8))
        guard case .concatenation(let pieces) = request.body, pieces.contains(where: {
            if case .file(let path, 0, let length) = $0 { return path == file.path && length == content.count }
            return false
        }) else { return XCTFail("the file part must be streamed from the file, not loaded") }
    }

    func testVersionSendsIfMatchAndIsNotRetriedBlindly() async throws {
        let file = try temporaryFile(content)
        defer { try? FileManager.default.removeItem(at: file) }
        let http = ScriptedHTTP { _, _ in ScriptedHTTP.response(503, headers: [("Retry-After", "0")]) }
        do {
            _ = try await BoxClient.scripted(http).uploadVersion(fileID: "77", path: file.path, ifMatch: "5")
            XCTFail("expected an error")
        } catch let error as BoxAPIError {
            XCTAssertEqual(error.kind, .server)
        }
        XCTAssertEqual(http.requests.count, 1, "an upload may have been stored: never repeated by the client")
        XCTAssertEqual(http.requests[0].headers["If-Match"], "5")
        XCTAssertTrue(http.requests[0].url.hasPrefix("https://api.test/api/2.0/files/77/content"))
    }

    func testPreconditionFailedAndNameInUseAreRecognised() async throws {
        let file = try temporaryFile(content)
        defer { try? FileManager.default.removeItem(at: file) }
        let conflictObject = #"{"type":"error","status":409,"code":"item_name_in_use","message":"Item with the same name already exists","context_info":{"conflicts":{"type":"file","id":"55","name":"x","sha1":"abc","etag":"0"}}}"#
        let http = ScriptedHTTP { request, _ in
            request.url.contains("/files/content")
                ? ScriptedHTTP.response(409, json: conflictObject)
                : ScriptedHTTP.response(412, json: #"{"type":"error","status":412,"code":"precondition_failed"}"#)
        }
        let client = BoxClient.scripted(http)
        do {
            _ = try await client.uploadFile(path: file.path, name: "x", parentID: "0")
            XCTFail("expected 409")
        } catch let error as BoxAPIError {
            XCTAssertTrue(error.isNameInUse)
            XCTAssertEqual(error.conflicts.map(\.id), ["55"])
            XCTAssertEqual(error.conflicts.first?.sha1, "abc")
        }
        do {
            _ = try await client.uploadVersion(fileID: "55", path: file.path, ifMatch: "0")
            XCTFail("expected 412")
        } catch let error as BoxAPIError {
            XCTAssertTrue(error.isPreconditionFailed)
            XCTAssertEqual(error.kind, .preconditionFailed)
        }
    }

    func testStorageAndSizeLimitsAreRecognised() async throws {
        let file = try temporaryFile(content)
        defer { try? FileManager.default.removeItem(at: file) }
        let http = ScriptedHTTP { _, index in
            switch index {
            case 0: ScriptedHTTP.response(403, json: #"{"type":"error","status":403,"code":"storage_limit_exceeded"}"#)
            case 1: ScriptedHTTP.response(403, json: #"{"type":"error","status":403,"code":"file_size_limit_exceeded"}"#)
            default: ScriptedHTTP.response(413)
            }
        }
        let client = BoxClient.scripted(http)
        var seen: [(Bool, Bool)] = []
        for _ in 0..<3 {
            do {
                _ = try await client.uploadFile(path: file.path, name: "x", parentID: "0")
            } catch let error as BoxAPIError {
                seen.append((error.isStorageLimitExceeded, error.isFileSizeLimitExceeded))
            }
        }
        XCTAssertEqual(seen.map(\.0), [true, false, false])
        XCTAssertEqual(seen.map(\.1), [false, true, true])
    }

    func testDigestOfARangeMatchesDigestOfItsBytes() throws {
        let file = try temporaryFile(content)
        defer { try? FileManager.default.removeItem(at: file) }
        let range = 1234..<98_765
        let expected = FileDigest.sha1(content.subdata(in: range))
        XCTAssertEqual(try FileDigest.sha1(path: file.path, offset: Int64(range.lowerBound), length: Int64(range.count)),
                       expected)
        XCTAssertEqual(try FileDigest.sha1(path: file.path).hex, FileDigest.sha1(content).hex)
        XCTAssertEqual(FileDigest.sha1(Data("abc".utf8)).hex, "a9993e364706816aba3e25717850c26c9cd0d89d")
        XCTAssertEqual(FileDigest.sha1(Data("abc".utf8)).base64, "qZk+NkcGgWq6PiVxeFDCbJzQ2J0=")
        XCTAssertThrowsError(try FileDigest.sha1(path: file.path, offset: 99_000, length: 5_000), "file too short")
    }

    func testDateFormatRoundTrips() {
        for seconds in [0.0, 1_360_025_872, 951_782_400 /* 2000-02-29 */, -86_400, 4_102_444_800] {
            let text = BoxDate.format(Date(timeIntervalSince1970: seconds))
            XCTAssertEqual(BoxDate.parse(text)?.timeIntervalSince1970, seconds, text)
        }
        XCTAssertEqual(BoxDate.format(Date(timeIntervalSince1970: 951_782_400)), "2000-02-29T00:00:00Z")
    }
}
