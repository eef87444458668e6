import BoxTestSupport
import Foundation
import XCTest

/// Chunked upload sessions: create, parts (concurrent, out of order, Content-Range and Digest checked),
/// list parts, commit (202 + Retry-After while "processing", then 201), abort, expiry.
final class UploadSessionTests: XCTestCase {
    static let fileSize = 20_000_001

    func testConcurrentOutOfOrderPartsCommitAfterPendingAnswers() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let local = try UploadFiles.random(size: Self.fileSize)
        defer { try? FileManager.default.removeItem(at: local) }
        XCTAssertEqual(try fixture.postJSON("/_control/settings", ["commit_pending_responses": 1, "commit_retry_after": 2],
                                            method: "PUT").status, 200)
        let session = try fixture.createSession(["folder_id": "0", "file_size": Self.fileSize, "file_name": "big upload.bin"])
        XCTAssertEqual(session["part_size"] as? Int, 8_388_608)
        XCTAssertEqual(session["total_parts"] as? Int, 3)
        XCTAssertEqual(session["num_parts_processed"] as? Int, 0)
        let endpoints = try XCTUnwrap(session["session_endpoints"] as? [String: String])
        let uploadURL = try XCTUnwrap(endpoints["upload_part"])
        XCTAssertTrue(uploadURL.hasPrefix(fixture.sim.baseURL + "/api/2.0/files/upload_sessions/"), uploadURL)

        // All three parts at once, last first.
        let offsets = [16_777_216, 0, 8_388_608]
        let answers = try await withThrowingTaskGroup(of: CurlResult.self) { group in
            for offset in offsets {
                group.addTask { try fixture.putPart(uploadURL, file: local, offset: offset, total: Self.fileSize) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(answers.map(\.status), [200, 200, 200], answers.map(\.text).joined())
        let retried = try fixture.putPart(uploadURL, file: local, offset: 0, total: Self.fileSize)
        XCTAssertEqual(retried.status, 200, "the same part again is accepted")

        let listing = try fixture.getJSON(URL(string: endpoints["list_parts"]!)!.path)
        let parts = try XCTUnwrap(listing["entries"] as? [[String: Any]])
        XCTAssertEqual(parts.compactMap { $0["offset"] as? Int }, [0, 8_388_608, 16_777_216])
        XCTAssertEqual(listing["total_count"] as? Int, 3)
        XCTAssertEqual(try fixture.getJSON(URL(string: endpoints["status"]!)!.path)["num_parts_processed"] as? Int, 3)

        let commitPath = URL(string: endpoints["commit"]!)!.path
        let body: [String: Any] = ["parts": parts, "attributes": ["content_modified_at": "2019-05-06T07:08:09Z"]]
        let digest = try UploadDigest.base64SHA1(of: local)
        let pending = try fixture.commit(commitPath, body: body, digest: digest)
        XCTAssertEqual(pending.status, 202)
        XCTAssertEqual(pending.headers["retry-after"], "2")
        XCTAssertEqual(try fixture.commit(commitPath, body: ["parts": Array(parts.prefix(2))], digest: digest).status, 400,
                       "a parts list without the last part")
        let committed = try fixture.commit(commitPath, body: body, digest: digest)
        XCTAssertEqual(committed.status, 201, committed.text)
        let entry = try XCTUnwrap((try committed.json()["entries"] as? [[String: Any]])?.first)
        XCTAssertEqual(entry["name"] as? String, "big upload.bin")
        XCTAssertEqual(entry["size"] as? Int, Self.fileSize)
        XCTAssertEqual(entry["sha1"] as? String, try Curl.sha1(of: local))
        XCTAssertEqual(entry["content_modified_at"] as? String, "2019-05-06T07:08:09+00:00")
        let fileID = try XCTUnwrap(entry["id"] as? String)
        let location = try XCTUnwrap(try fixture.get("/2.0/files/\(fileID)/content").headers["location"])
        XCTAssertEqual(try Curl.run(location).body, try Data(contentsOf: local))
        XCTAssertEqual(try fixture.get(URL(string: endpoints["status"]!)!.path).status, 404, "the session is gone")
    }

    func testPartChecksAndSessionRules() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let local = try UploadFiles.random(size: Self.fileSize)
        defer { try? FileManager.default.removeItem(at: local) }
        let small = try fixture.postJSON("/api/2.0/files/upload_sessions",
                                         ["folder_id": "0", "file_size": 19_999_999, "file_name": "s.bin"],
                                         token: fixture.sim.developerToken)
        XCTAssertEqual(small.status, 400)
        XCTAssertEqual(try small.json()["code"] as? String, "file_size_too_small")
        let clash = try fixture.postJSON("/api/2.0/files/upload_sessions",
                                         ["folder_id": "0", "file_size": Self.fileSize, "file_name": "HELLO.txt"],
                                         token: fixture.sim.developerToken)
        XCTAssertEqual(clash.status, 409)
        XCTAssertNotNil((try clash.json()["context_info"] as? [String: Any])?["conflicts"] as? [String: Any])

        let session = try fixture.createSession(["folder_id": "0", "file_size": Self.fileSize, "file_name": "p.bin"])
        let uploadURL = try XCTUnwrap((session["session_endpoints"] as? [String: String])?["upload_part"])
        let misaligned = try fixture.putPart(uploadURL, file: local, offset: 1000, length: 8_388_608, total: Self.fileSize)
        XCTAssertEqual(misaligned.status, 416)
        let wrongDigest = try fixture.putPart(uploadURL, file: local, offset: 0, total: Self.fileSize,
                                              digest: "sha=" + Data(count: 20).base64EncodedString())
        XCTAssertEqual(wrongDigest.status, 400)
        XCTAssertEqual(try wrongDigest.json()["code"] as? String, "bad_digest")
        XCTAssertEqual(try fixture.putPart(uploadURL, file: local, offset: 0, total: Self.fileSize).status, 200)
        let other = try UploadFiles.random(size: Self.fileSize)
        defer { try? FileManager.default.removeItem(at: other) }
        let overlap = try fixture.putPart(uploadURL, file: other, offset: 0, total: Self.fileSize)
        XCTAssertEqual(overlap.status, 409)
        XCTAssertEqual(try overlap.json()["code"] as? String, "range_overlaps_existing_part")

        let abortPath = URL(string: uploadURL)!.path
        XCTAssertEqual(try Curl.run(uploadURL, token: fixture.sim.developerToken, method: "DELETE").status, 204)
        XCTAssertEqual(try fixture.get(abortPath).status, 404)

        XCTAssertEqual(try fixture.postJSON("/_control/settings", ["upload_session_lifetime": 1], method: "PUT").status, 200)
        let shortLived = try fixture.createSession(["folder_id": "0", "file_size": Self.fileSize, "file_name": "e.bin"])
        try await Task.sleep(nanoseconds: 2_100_000_000)
        let expired = try fixture.get("/api/2.0/files/upload_sessions/\(shortLived["id"] as? String ?? "")")
        XCTAssertEqual(expired.status, 410)
        XCTAssertEqual(try expired.json()["code"] as? String, "session_expired")
    }

    func testVersionSessionReplacesContent() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let local = try UploadFiles.random(size: Self.fileSize)
        defer { try? FileManager.default.removeItem(at: local) }
        let fileID = try fixture.id(of: "hello.txt")
        let session = try fixture.createSession(["file_size": Self.fileSize], path: "/api/2.0/files/\(fileID)/upload_sessions")
        let endpoints = try XCTUnwrap(session["session_endpoints"] as? [String: String])
        var parts: [[String: Any]] = []
        for offset in [0, 8_388_608, 16_777_216] {
            let answer = try fixture.putPart(endpoints["upload_part"]!, file: local, offset: offset, total: Self.fileSize)
            parts.append(try XCTUnwrap(try answer.json()["part"] as? [String: Any]))
        }
        let committed = try fixture.commit(URL(string: endpoints["commit"]!)!.path, body: ["parts": parts],
                                           digest: try UploadDigest.base64SHA1(of: local))
        XCTAssertEqual(committed.status, 201, committed.text)
        let file = try fixture.getJSON("/2.0/files/\(fileID)")
        XCTAssertEqual(file["name"] as? String, "hello.txt")
        XCTAssertEqual(file["sha1"] as? String, try Curl.sha1(of: local))
        XCTAssertEqual(file["size"] as? Int, Self.fileSize)
    }
}
