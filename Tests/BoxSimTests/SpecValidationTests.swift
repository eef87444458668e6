import BoxTestSupport
import Foundation
import XCTest

/// Every JSON body boxsim answers validates against the spec's schema for that operation and status
/// (scripts/check-box-response: openapi-schema-validator over box-openapi's openapi.json).
final class SpecValidationTests: XCTestCase {
    static let specPath = ProcessInfo.processInfo.environment["BOX_OPENAPI_SPEC"]
        ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/box-api/openapi/openapi.json").path
    static let checker = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/check-box-response").path

    /// A seeded boxsim and the ids the checks use. The spec sits beside every checkout, so its absence
    /// is a failure, not a skip.
    func startFixture() async throws -> (fixture: SimFixture, token: String, helloID: String, docsID: String) {
        XCTAssertTrue(FileManager.default.fileExists(atPath: Self.specPath), "no spec at \(Self.specPath)")
        let fixture = try await SimFixture.start()
        return (fixture, fixture.sim.developerToken, try fixture.id(of: "hello.txt"), try fixture.id(of: "docs"))
    }

    func testResponsesValidateAgainstTheSpec() async throws {
        let (fixture, token, helloID, docsID) = try await startFixture()
        defer { fixture.stop() }
        try assertValid("get_users_me", try fixture.get("/2.0/users/me"))
        try assertValid("get_folders_id", try fixture.get("/2.0/folders/0"))
        try assertValid("get_folders_id", try fixture.get("/2.0/folders/\(docsID)"))
        try assertValid("get_folders_id_items", try fixture.get("/2.0/folders/0/items"))
        try assertValid("get_folders_id_items", try fixture.get("/2.0/folders/0/items?usemarker=true&limit=2"))
        try assertValid("get_files_id", try fixture.get("/2.0/files/\(helloID)"))
        try assertValid("get_files_id", try fixture.get("/2.0/files/987654321"))
        try assertValid("post_folders", try fixture.postJSON("/2.0/folders", ["name": "n", "parent": ["id": "0"]], token: token))
        try assertValid("post_folders", try fixture.postJSON("/2.0/folders", ["name": "N", "parent": ["id": "0"]], token: token))
        try assertValid("put_files_id", try fixture.postJSON("/2.0/files/\(helloID)", ["name": "h.txt"], token: token,
                                                             method: "PUT"))
        try assertValid("post_files_id_copy", try fixture.postJSON("/2.0/files/\(helloID)/copy", ["parent": ["id": docsID]],
                                                                   token: token))
        try assertValid("post_folders_id_copy", try fixture.postJSON("/2.0/folders/\(docsID)/copy",
                                                                     ["parent": ["id": "0"], "name": "d2"], token: token))
        try assertValid("options_files_content", try fixture.postJSON("/2.0/files/content",
                                                                      ["name": "z", "parent": ["id": "0"], "size": 1],
                                                                      token: token, method: "OPTIONS"))
        try assertValid("options_files_content", try fixture.postJSON("/2.0/files/content",
                                                                      ["name": "h.txt", "parent": ["id": "0"], "size": 1],
                                                                      token: token, method: "OPTIONS"))
        let local = try UploadFiles.random(size: 20_000_001)
        defer { try? FileManager.default.removeItem(at: local) }
        let small = try UploadFiles.slice(of: local, offset: 0, length: 5000)
        defer { try? FileManager.default.removeItem(at: small) }
        let uploaded = try fixture.upload(attributes: ["name": "u.bin", "parent": ["id": "0"]], file: small)
        try assertValid("post_files_content", uploaded)
        try assertValid("post_files_content", try fixture.upload(attributes: ["name": "u.bin", "parent": ["id": "0"]],
                                                                 file: small))
        let uploadedID = try XCTUnwrap((try uploaded.json()["entries"] as? [[String: Any]])?.first?["id"] as? String)
        try assertValid("post_files_id_content", try fixture.upload(path: "/api/2.0/files/\(uploadedID)/content",
                                                                    attributes: [:], file: small))
        try assertChunkedUploadValidates(fixture, local: local)
        try assertValid("get_events", try fixture.get("/2.0/events?stream_position=0"))
        _ = try fixture.get("/2.0/files/\(helloID)/content")
        try assertValid("get_events", try fixture.get("/2.0/events?stream_position=0&stream_type=changes"))
        try assertValid("get_events", try fixture.get("/2.0/events?stream_type=admin_logs"))
        try assertValid("get_folders_id_items", try fixture.get("/2.0/folders/0/items?sort=size&direction=DESC"))
        try assertValid("options_events", try Curl.run(fixture.sim.baseURL + "/2.0/events", token: token,
                                                        method: "OPTIONS"))
    }

    /// Shared links: item updates that set one, `GET /2.0/shared_items` for a file and a folder, and its errors.
    func testSharedLinkResponsesValidateAgainstTheSpec() async throws {
        let (fixture, token, helloID, docsID) = try await startFixture()
        defer { fixture.stop() }
        let file = try fixture.postJSON("/2.0/files/\(helloID)", ["shared_link": ["access": "open", "password": "Secret123"]],
                                        token: token, method: "PUT")
        try assertValid("put_files_id", file)
        let folder = try fixture.postJSON("/2.0/folders/\(docsID)", ["shared_link": [String: Any]()], token: token,
                                          method: "PUT")
        try assertValid("put_folders_id", folder)
        let fileURL = try XCTUnwrap((try file.json()["shared_link"] as? [String: Any])?["url"] as? String)
        let folderURL = try XCTUnwrap((try folder.json()["shared_link"] as? [String: Any])?["url"] as? String)
        try assertValid("get_shared_items", try fixture.get("/2.0/shared_items",
                                                            headers: ["BoxApi": "shared_link=\(fileURL)&shared_link_password=Secret123"]))
        try assertValid("get_shared_items#folders", try fixture.get("/2.0/shared_items",
                                                                    headers: ["BoxApi": "shared_link=\(folderURL)"]))
        try assertValid("get_folders_id_items", try fixture.get("/2.0/folders/\(docsID)/items?fields=shared_link,name"))
        let wrongPassword = try fixture.get("/2.0/shared_items", headers: ["BoxApi": "shared_link=\(fileURL)"])
        XCTAssertEqual(wrongPassword.status, 403)
        try assertValid("get_shared_items", wrongPassword)
        let unknown = try fixture.get("/2.0/shared_items", headers: ["BoxApi": "shared_link=\(fixture.sim.baseURL)/s/nope"])
        XCTAssertEqual(unknown.status, 404)
        try assertValid("get_shared_items", unknown)
        try assertValid("put_files_id", try fixture.postJSON("/2.0/files/\(helloID)", ["shared_link": NSNull()], token: token,
                                                             method: "PUT"))
    }

    private func assertChunkedUploadValidates(_ fixture: SimFixture, local: URL) throws {
        let created = try fixture.postJSON("/api/2.0/files/upload_sessions",
                                           ["folder_id": "0", "file_size": 20_000_001, "file_name": "c.bin"],
                                           token: fixture.sim.developerToken)
        try assertValid("post_files_upload_sessions", created)
        let endpoints = try XCTUnwrap(try created.json()["session_endpoints"] as? [String: String])
        var parts: [[String: Any]] = []
        for offset in [0, 8_388_608, 16_777_216] {
            let answer = try fixture.putPart(endpoints["upload_part"]!, file: local, offset: offset, total: 20_000_001)
            try assertValid("put_files_upload_sessions_id", answer)
            parts.append(try XCTUnwrap(try answer.json()["part"] as? [String: Any]))
        }
        try assertValid("get_files_upload_sessions_id", try fixture.get(URL(string: endpoints["status"]!)!.path))
        try assertValid("get_files_upload_sessions_id_parts", try fixture.get(URL(string: endpoints["list_parts"]!)!.path))
        try assertValid("post_files_upload_sessions_id_commit",
                        try fixture.commit(URL(string: endpoints["commit"]!)!.path, body: ["parts": parts],
                                           digest: try UploadDigest.base64SHA1(of: local)))
    }
}

extension XCTestCase {
    /// Fails the test with the validator's findings unless `result` validates as `operation`'s answer.
    func assertValid(_ operation: String, _ result: CurlResult, file: StaticString = #filePath, line: UInt = #line) throws {
        let body = FileManager.default.temporaryDirectory.appendingPathComponent("body-\(UUID().uuidString).json")
        try result.body.write(to: body)
        defer { try? FileManager.default.removeItem(at: body) }
        do {
            _ = try Curl.runProcess("/usr/bin/env", ["python3", SpecValidationTests.checker, SpecValidationTests.specPath, operation, String(result.status),
                                                         body.path])
        } catch CurlError.failed(let status, let stderr) {
            XCTFail("\(operation) \(result.status) does not validate (checker exit \(status)):\n\(stderr)\n\(result.text.prefix(500))",
                    file: file, line: line)
        }
    }
}
