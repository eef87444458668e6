import CurlHTTP
import Foundation
import XCTest

@testable import BoxAPI

/// Chunked upload sessions: recorded shapes, part headers, retries, commit waiting on 202.
final class UploadSessionBehaviourTests: XCTestCase {
    private func session() throws -> UploadSession {
        try BoxJSON.decode(UploadSessionDTO.self, from: RecordedFixtures.data("Files/ChunkedUploadSessionNewFile.json"))
            .session
    }

    func testRecordedSessionPartsAndCommitDecode() throws {
        let session = try session()
        XCTAssertEqual(session.id, "D5E3F7ADA11A38F0A66AD0B64AACA658")
        XCTAssertEqual(session.partSize, 8_388_608)
        XCTAssertEqual(session.totalParts, 3)
        XCTAssertEqual(session.expiresAt, referenceDate("2017-11-09T21:59:16Z"))
        XCTAssertTrue(session.uploadPartURL.hasSuffix("/upload_sessions/D5E3F7ADA11A38F0A66AD0B64AACA658"))
        XCTAssertTrue(session.listPartsURL.hasSuffix("/parts"))
        XCTAssertTrue(session.commitURL.hasSuffix("/commit"))
        XCTAssertEqual(session.range(ofPart: 2, fileSize: 20_000_000), 16_777_216..<20_000_000)

        let version = try BoxJSON.decode(
            UploadSessionDTO.self, from: RecordedFixtures.data("Files/ChunkedUploadSessionNewFileVersion.json")).session
        XCTAssertEqual(version.totalParts, 2)

        let part = try BoxJSON.decode(
            UploadedPartDTO.self, from: RecordedFixtures.data("Files/ChunkedUploadSessionUploadPart.json")).part
        XCTAssertFalse(part.partID.isEmpty)
        let parts = try BoxJSON.decode(
            UploadPartsPageDTO.self, from: RecordedFixtures.data("Files/ChunkedUploadSessionListParts.json"))
        XCTAssertEqual(parts.entries.map(\.part.offset), [0, 8_388_608, 16_777_216])
        XCTAssertEqual(parts.entries.map(\.part.size).reduce(0, +), 20_000_000)
        XCTAssertNil(parts.entries[0].part.sha1)

        let files = try BoxJSON.decode(FilesDTO.self, from: RecordedFixtures.data("Files/ChunkedUploadSessionCommit.json"))
        XCTAssertEqual(files.entries.first?.item.id, "243696906120")
        XCTAssertEqual(files.entries.first?.item.fileVersionID, "257047849608")
        let upload = try BoxJSON.decode(FilesDTO.self, from: RecordedFixtures.data("Files/UploadFile.json"))
        XCTAssertEqual(upload.entries.first?.item.sha1, "134b65991ed521fcfe4724b7d814ab8ded5185dc")
    }

    func testPartCarriesRangeAndDigestAndIsRetried() async throws {
        let content = Data((0..<30_000).map { UInt8(truncatingIfNeeded: $0 / 3) })
        let file = try temporaryFile(content)
        defer { try? FileManager.default.removeItem(at: file) }
        var session = try session()
        session.partSize = 10_000
        let http = ScriptedHTTP { _, index in
            index == 0
                ? ScriptedHTTP.response(503, headers: [("Retry-After", "0")])
                : ScriptedHTTP.response(200, json: #"{"part":{"part_id":"P2","offset":10000,"size":10000,"sha1":null}}"#)
        }
        let part = try await BoxClient.scripted(http).uploadPart(
            session, path: file.path, range: session.range(ofPart: 1, fileSize: 30_000), fileSize: 30_000)
        XCTAssertEqual(part.partID, "P2")
        XCTAssertEqual(part.sha1, FileDigest.sha1(content.subdata(in: 10_000..<20_000)).hex, "filled in locally")
        XCTAssertEqual(http.requests.count, 2, "a part PUT is idempotent and retried")
        let request = http.requests[1]
        XCTAssertEqual(request.method, .put)
        XCTAssertEqual(request.url, session.uploadPartURL)
        XCTAssertEqual(request.headers["Content-Range"], "bytes 10000-19999/30000")
        XCTAssertEqual(request.headers["Digest"], "sha=" + FileDigest.sha1(content.subdata(in: 10_000..<20_000)).base64)
        XCTAssertEqual(request.body, .file(path: file.path, offset: 10_000, length: 10_000))
    }

    func testCommitWaitsOn202AndSendsWholeFileDigest() async throws {
        let session = try session()
        let digest = FileDigest.sha1(Data("whole".utf8))
        let done = filesJSON(id: "900", name: "big.bin", size: 20_000_000, sha1: digest.hex)
        let http = ScriptedHTTP { _, index in
            index < 2
                ? ScriptedHTTP.response(202, headers: [("Retry-After", "0")])
                : ScriptedHTTP.response(201, json: done)
        }
        let parts = [
            UploadPart(partID: "B", offset: 8_388_608, size: 11_611_392, sha1: "bb"),
            UploadPart(partID: "A", offset: 0, size: 8_388_608, sha1: nil),
        ]
        let item = try await BoxClient.scripted(http).commitUploadSession(
            session, parts: parts, fileSHA1: digest, ifMatch: "4", contentModifiedAt: Date(timeIntervalSince1970: 0))
        XCTAssertEqual(item.id, "900")
        XCTAssertEqual(http.requests.count, 3)
        let request = http.requests[0]
        XCTAssertEqual(request.headers["Digest"], "sha=\(digest.base64)")
        XCTAssertEqual(request.headers["If-Match"], "4")
        let body = try JSONSerialization.jsonObject(with: bodyBytes(request.body)) as? [String: Any]
        let sent = try XCTUnwrap(body?["parts"] as? [[String: Any]])
        XCTAssertEqual(sent.map { $0["part_id"] as? String }, ["A", "B"], "in offset order")
        XCTAssertEqual((body?["attributes"] as? [String: Any])?["content_modified_at"] as? String, "1970-01-01T00:00:00Z")
    }

    func testCommitIsNotRepeatedAfterAServerError() async throws {
        let http = ScriptedHTTP { _, _ in ScriptedHTTP.response(500) }
        do {
            _ = try await BoxClient.scripted(http).commitUploadSession(
                try session(), parts: [], fileSHA1: FileDigest.sha1(Data()))
            XCTFail("expected an error")
        } catch let error as BoxAPIError {
            XCTAssertEqual(error.status, 500)
        }
        XCTAssertEqual(http.requests.count, 1)
    }

    func testListPartsPagesAndSessionCreateBody() async throws {
        let session = try session()
        let http = ScriptedHTTP { request, _ in
            if request.url.contains("offset=0") {
                return ScriptedHTTP.response(200, json: #"{"entries":[{"part_id":"A","offset":0,"size":5}],"total_count":2}"#)
            }
            if request.url.contains("offset=1") {
                return ScriptedHTTP.response(200, json: #"{"entries":[{"part_id":"B","offset":5,"size":5}],"total_count":2}"#)
            }
            return ScriptedHTTP.response(201, json: String(decoding: try RecordedFixtures.data(
                "Files/ChunkedUploadSessionNewFile.json"), as: UTF8.self))
        }
        let client = BoxClient.scripted(http)
        let parts = try await client.uploadedParts(session)
        XCTAssertEqual(parts.map(\.partID), ["A", "B"])
        _ = try await client.createUploadSession(parentID: "0", name: "big.bin", size: 30_000_000)
        let create = try XCTUnwrap(http.requests.last)
        XCTAssertEqual(create.url, "https://api.test/api/2.0/files/upload_sessions")
        XCTAssertEqual(String(decoding: try bodyBytes(create.body), as: UTF8.self),
                       #"{"file_name":"big.bin","file_size":30000000,"folder_id":"0"}"#)
    }
}
