import BoxTestSupport
import Foundation
import XCTest

/// The rest of `RecordedShapeTests.otherRecordings`: events, users, OAuth tokens, chunked upload sessions.
final class RecordedShapeOtherTests: XCTestCase {
    func testEventUserTokenAndUploadSessionAnswersHaveTheRecordedShapes() async throws {
        let fixture = try await SimFixture.start(extraArgs: ["--auto-approve"])
        defer { fixture.stop() }
        let token = fixture.sim.developerToken
        let shapes = ShapeComparison()

        let start = try XCTUnwrap(try fixture.getJSON("/2.0/events?stream_position=now")["next_stream_position"] as? Int)
        _ = try fixture.postJSON("/2.0/folders", ["name": "Pictures", "parent": ["id": "0"]], token: token)
        try shapes.compare("Events/GetUserEvents.json",
                           try fixture.get("/2.0/events?stream_position=\(start)&limit=1"), status: 200)
        try shapes.compare("Events/GetPollingURL.json",
                           try Curl.run(fixture.sim.baseURL + "/2.0/events", token: token, method: "OPTIONS"), status: 200)
        try shapes.compare("Events/GetNewEvents.json",
                           try Curl.run(fixture.sim.baseURL + "/subscribe?channel=unknown&stream_type=all"), status: 200)

        try shapes.compare("Users/GetCurrentUserInfo.json", try fixture.get("/2.0/users/me"), status: 200)
        try shapes.compare("Users/FullUser.json",
                           try fixture.get("/2.0/users/me?fields=" + RecordedShapeTests.keys("Users/FullUser.json")),
                           status: 200)

        try compareTokens(fixture, shapes)
        try compareUploadSession(fixture, shapes)
        XCTAssertEqual(shapes.compared, RecordedShapeTests.otherRecordings)
        shapes.assertClean()
    }

    /// Authorization code, refresh and downscoping (for a file, with two scopes as in Box's recording).
    private func compareTokens(_ fixture: SimFixture, _ shapes: ShapeComparison) throws {
        let app = try fixture.createApp(redirectURI: "http://127.0.0.1:9/callback")
        let authorize = try Curl.run(fixture.sim.baseURL + "/api/oauth2/authorize?response_type=code&client_id="
                                     + app["client_id"]!)
        let location = try XCTUnwrap(URLComponents(string: authorize.headers["location"] ?? ""))
        let code = try XCTUnwrap(location.queryItems?.first { $0.name == "code" }?.value)
        let client = ["client_id": app["client_id"]!, "client_secret": app["client_secret"]!]
        let granted = try fixture.postForm("/oauth2/token", client.merging(["grant_type": "authorization_code",
                                                                            "code": code]) { $1 })
        try shapes.compare("Sessions/AccessToken.json", granted, status: 200)
        let refresh = try XCTUnwrap(try granted.json()["refresh_token"] as? String)
        try shapes.compare("Sessions/TokenRefresh.json",
                           try fixture.postForm("/oauth2/token", client.merging(["grant_type": "refresh_token",
                                                                                 "refresh_token": refresh]) { $1 }),
                           status: 200)
        let fileID = try fixture.id(of: "hello.txt")
        try shapes.compare("Sessions/DownscopeToken.json", try fixture.postForm("/oauth2/token", [
            "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
            "subject_token": fixture.sim.developerToken,
            "subject_token_type": "urn:ietf:params:oauth:token-type:access_token",
            "scope": "item_preview item_upload", "resource": fixture.sim.baseURL + "/2.0/files/\(fileID)",
        ]), status: 200)
    }

    /// A 20,000,000-byte session for a new file (three parts, as in Box's recordings), then one for a new version.
    private func compareUploadSession(_ fixture: SimFixture, _ shapes: ShapeComparison) throws {
        let token = fixture.sim.developerToken
        let size = 20_000_000
        let local = try UploadFiles.random(size: size)
        defer { try? FileManager.default.removeItem(at: local) }
        let created = try fixture.postJSON("/api/2.0/files/upload_sessions",
                                           ["folder_id": "0", "file_size": size, "file_name": "chunked.bin"], token: token)
        try shapes.compare("Files/ChunkedUploadSessionNewFile.json", created, status: 201)
        let endpoints = try XCTUnwrap(try created.json()["session_endpoints"] as? [String: String])
        var parts: [[String: Any]] = []
        for offset in [0, 8_388_608, 16_777_216] {
            let answer = try fixture.putPart(endpoints["upload_part"]!, file: local, offset: offset, total: size)
            if offset == 0 { try shapes.compare("Files/ChunkedUploadSessionUploadPart.json", answer, status: 200) }
            parts.append(try XCTUnwrap(try answer.json()["part"] as? [String: Any]))
        }
        try shapes.compare("Files/ChunkedUploadSessionGetSession.json",
                           try fixture.get(URL(string: endpoints["status"]!)!.path), status: 200)
        try shapes.compare("Files/ChunkedUploadSessionListParts.json",
                           try fixture.get(URL(string: endpoints["list_parts"]!)!.path), status: 200)
        let committed = try fixture.commit(URL(string: endpoints["commit"]!)!.path, body: ["parts": parts],
                                           digest: try UploadDigest.base64SHA1(of: local))
        try shapes.compare("Files/ChunkedUploadSessionCommit.json", committed, status: 201)
        let fileID = try XCTUnwrap((try committed.json()["entries"] as? [[String: Any]])?.first?["id"] as? String)
        try shapes.compare("Files/ChunkedUploadSessionNewFileVersion.json",
                           try fixture.postJSON("/api/2.0/files/\(fileID)/upload_sessions", ["file_size": size],
                                                token: token), status: 201)
    }
}
