import BoxTestSupport
import Foundation
import XCTest

/// The `--box-limits` profile: Box's per-user limits on API calls, uploads and searches, answered 429
/// `rate_limit_exceeded` with Box's error body and `Retry-After`; counted in `GET /_control/limits`.
final class BoxLimitTests: XCTestCase {
    private func setLimits(_ fixture: SimFixture, _ limits: Any) throws -> [String: Any] {
        let answer = try fixture.postJSON("/_control/settings", ["box_limits": limits], method: "PUT")
        XCTAssertEqual(answer.status, 200, answer.text)
        return try answer.json()
    }

    private func counts(_ fixture: SimFixture) throws -> [String: Any] {
        try XCTUnwrap(try fixture.getJSON("/_control/limits")["box_limits"] as? [String: Any])
    }

    /// Box's 429 (developer.box.com rate-limits guide): the ClientError shape, `rate_limit_exceeded`, `retry-after`;
    /// the body validates against the spec's answer for `operation`.
    private func assertBoxRateLimit(_ answer: CurlResult, retryAfter range: ClosedRange<Int>, operation: String,
                                    file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(answer.status, 429, answer.text, file: file, line: line)
        let body = try answer.json()
        XCTAssertEqual(body["type"] as? String, "error", file: file, line: line)
        XCTAssertEqual(body["status"] as? Int, 429, file: file, line: line)
        XCTAssertEqual(body["code"] as? String, "rate_limit_exceeded", file: file, line: line)
        XCTAssertEqual(body["message"] as? String, "Request rate limit exceeded, please try again later", file: file, line: line)
        XCTAssertNotNil(body["request_id"] as? String, file: file, line: line)
        let seconds = try XCTUnwrap(answer.headers["retry-after"].flatMap { Int($0) }, "retry-after", file: file, line: line)
        XCTAssertTrue(range.contains(seconds), "retry-after \(seconds) not in \(range)", file: file, line: line)
        try assertValid(operation, answer, file: file, line: line)
    }

    func testLimitsAreOffByDefaultAndSetThroughTheCommandLineOrSettings() async throws {
        let plain = try await SimFixture.start()
        defer { plain.stop() }
        XCTAssertTrue(try plain.getJSON("/_control/settings")["box_limits"] is NSNull, "off by default")
        let box = try setLimits(plain, true)["box_limits"] as? [String: Int]
        XCTAssertEqual(box, ["calls_per_minute": 1000, "uploads_per_minute": 240, "searches_per_second": 6,
                             "searches_per_minute": 60], "true: Box's published numbers")
        XCTAssertEqual((try setLimits(plain, ["uploads_per_minute": 3])["box_limits"] as? [String: Int])?["uploads_per_minute"], 3)
        XCTAssertTrue(try setLimits(plain, false)["box_limits"] is NSNull)
        XCTAssertEqual(try plain.postJSON("/_control/settings", ["box_limits": ["calls_per_minute": 0]], method: "PUT").status, 400)
        XCTAssertEqual(try plain.postJSON("/_control/settings", ["box_limits": ["hugs_per_minute": 5]], method: "PUT").status, 400)

        let flagged = try await SimFixture.start(extraArgs: ["--box-limits", "--box-limit", "searches_per_second=2"])
        defer { flagged.stop() }
        XCTAssertEqual(try flagged.getJSON("/_control/settings")["box_limits"] as? [String: Int],
                       ["calls_per_minute": 1000, "uploads_per_minute": 240, "searches_per_second": 2,
                        "searches_per_minute": 60])
    }

    /// API-host calls are counted (the content call too); the download it redirects to (dl host), OAuth and control
    /// calls are not. The 429 counts against nothing, so the window does not grow with refused calls.
    func testCallsBeyondTheMinuteLimitGetBoxs429AndDownloadsFromTheDlHostAreNotCounted() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let id = try fixture.id(of: "hello.txt")
        _ = try setLimits(fixture, ["calls_per_minute": 3])

        let content = try fixture.get("/2.0/files/\(id)/content")
        XCTAssertEqual(content.status, 302, content.text)
        let location = try XCTUnwrap(content.headers["location"])
        XCTAssertEqual(try fixture.get("/2.0/users/me").status, 200)
        XCTAssertEqual(try fixture.get("/2.0/folders/0").status, 200)
        for _ in 0..<3 {
            let download = try Curl.run(location)
            XCTAssertEqual(download.status, 200, "the dl host is not the API host")
            XCTAssertEqual(download.text, "hello world\n")
        }
        try assertBoxRateLimit(try fixture.get("/2.0/users/me"), retryAfter: 50...60, operation: "get_users_me")
        try assertBoxRateLimit(try fixture.get("/2.0/files/\(id)"), retryAfter: 50...60, operation: "get_files_id")
        let counted = try counts(fixture)
        XCTAssertEqual(counted["refused"] as? Int, 2)
        XCTAssertEqual((counted["exceeded"] as? [String: Int])?["calls_per_minute"], 2)
        XCTAssertEqual((counted["limits"] as? [String: Int])?["calls_per_minute"], 3)

        let other = try fixture.createUser(name: "Other")
        let token = try XCTUnwrap(try fixture.postJSON("/_control/tokens", ["user_id": other]).json()["access_token"] as? String)
        XCTAssertEqual(try Curl.run(fixture.sim.baseURL + "/2.0/users/me", token: token).status, 200, "limits are per user")

        XCTAssertEqual(try fixture.call("DELETE", "/_control/limits").status, 204)
        XCTAssertEqual(try fixture.get("/2.0/users/me").status, 200, "windows and counts forgotten")
        XCTAssertEqual(try counts(fixture)["refused"] as? Int, 0)
    }

    /// Uploads (simple, or the start of a chunked one) have their own limit, on either host; the calls limit is not
    /// reached by upload-host requests.
    func testUploadsBeyondTheirLimitGet429() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        _ = try setLimits(fixture, ["uploads_per_minute": 2, "calls_per_minute": 2])
        let file = try UploadFiles.random(size: 100)
        defer { try? FileManager.default.removeItem(at: file) }
        XCTAssertEqual(try fixture.upload(attributes: ["name": "one.bin", "parent": ["id": "0"]], file: file).status, 201)
        XCTAssertEqual(try fixture.upload(attributes: ["name": "two.bin", "parent": ["id": "0"]], file: file).status, 201)
        try assertBoxRateLimit(try fixture.upload(attributes: ["name": "three.bin", "parent": ["id": "0"]], file: file),
                               retryAfter: 50...60, operation: "post_files_content")
        let session = try fixture.postJSON("/api/2.0/files/upload_sessions",
                                           ["folder_id": "0", "file_size": 20_000_000, "file_name": "big.bin"],
                                           token: fixture.sim.developerToken)
        try assertBoxRateLimit(session, retryAfter: 50...60, operation: "post_files_upload_sessions")
        XCTAssertEqual((try counts(fixture)["exceeded"] as? [String: Int])?["uploads_per_minute"], 2)
        XCTAssertEqual((try counts(fixture)["exceeded"] as? [String: Int])?["calls_per_minute"], 0,
                       "uploads on the upload host are not API-host calls")
        XCTAssertEqual(try fixture.get("/2.0/users/me").status, 200, "the calls limit is untouched by uploads")
    }

    /// Searches count against 6 a second and 60 a minute (here 1 and 2); the per-second window frees a slot after a
    /// second, the minute window after a minute (a refusal by the minute window says so in `Retry-After`).
    func testSearchesAreLimitedPerSecondAndPerMinute() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        _ = try setLimits(fixture, ["searches_per_second": 1, "searches_per_minute": 2])
        let started = Date()
        XCTAssertEqual(try fixture.get("/2.0/search?query=needle").status, 200)
        let second = try fixture.get("/2.0/search?query=needle")
        let elapsed = Date().timeIntervalSince(started)
        if second.status == 200 {
            XCTAssertGreaterThanOrEqual(elapsed, 1, "a second search within a second must be refused")
            throw XCTSkip("the machine took \(elapsed) s for two searches: the per-second window cannot be shown")
        }
        try assertBoxRateLimit(second, retryAfter: 1...1, operation: "get_search")
        XCTAssertEqual((try counts(fixture)["exceeded"] as? [String: Int])?["searches_per_second"], 1)
        try await Task.sleep(for: .milliseconds(1100))
        XCTAssertEqual(try fixture.get("/2.0/search?query=needle").status, 200, "a second later the slot is free")
        try await Task.sleep(for: .milliseconds(1100))
        try assertBoxRateLimit(try fixture.get("/2.0/search?query=needle"), retryAfter: 50...60, operation: "get_search")
        XCTAssertEqual((try counts(fixture)["exceeded"] as? [String: Int])?["searches_per_minute"], 1)
        XCTAssertEqual(try fixture.get("/2.0/folders/0").status, 200, "other calls go on")
    }
}
