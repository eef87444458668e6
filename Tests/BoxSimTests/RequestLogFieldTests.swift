import BoxTestSupport
import Foundation
import XCTest

/// Request-log fields beyond the shared contract's: `grant_type` of `/oauth2/token` requests and the
/// `content_range` of upload-session part PUTs; every earlier field stays on every line.
final class RequestLogFieldTests: XCTestCase {
    static let contractFields: Set<String> = ["seq", "time", "method", "path", "query", "status", "bytes_sent",
                                              "authorization", "boxapi", "as_user", "range", "user_id"]

    /// The raw log lines as JSON objects (`LoggedRequest` in BoxTestSupport does not decode the new fields).
    private func rawLog(_ sim: BoxSimProcess) throws -> [[String: Any]] {
        let data = try Data(contentsOf: sim.dataDirectory.appendingPathComponent("requests.jsonl"))
        return try data.split(separator: UInt8(ascii: "\n")).map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any])
        }
    }

    func testTokenRequestsLogTheirGrantTypeAndPartPutsTheirContentRange() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let app = try fixture.createApp()
        let granted = try fixture.postForm("/oauth2/token", [
            "grant_type": "client_credentials", "client_id": app["client_id"]!, "client_secret": app["client_secret"]!,
            "box_subject_type": "enterprise", "box_subject_id": app["enterprise_id"]!,
        ])
        XCTAssertEqual(granted.status, 200, granted.text)
        let refused = try fixture.postForm("/oauth2/token", ["grant_type": "refresh_token", "refresh_token": "nope",
                                                             "client_id": app["client_id"]!, "client_secret": "wrong"])
        XCTAssertEqual(refused.status, 400)

        let size = 20_000_001
        let local = try UploadFiles.sparse(size: size)
        defer { try? FileManager.default.removeItem(at: local) }
        let session = try fixture.createSession(["folder_id": "0", "file_size": size, "file_name": "log.bin"])
        let endpoints = try XCTUnwrap(session["session_endpoints"] as? [String: String])
        XCTAssertEqual(try fixture.putPart(endpoints["upload_part"]!, file: local, offset: 8_388_608, total: size).status, 200)

        let log = try rawLog(fixture.sim)
        for line in log { XCTAssertTrue(Self.contractFields.isSubset(of: Set(line.keys)), "\(line)") }
        let tokenLines = log.filter { $0["path"] as? String == "/oauth2/token" }
        XCTAssertEqual(tokenLines.map { $0["grant_type"] as? String }, ["client_credentials", "refresh_token"])
        XCTAssertEqual(tokenLines.map { $0["status"] as? Int }, [200, 400])
        let part = try XCTUnwrap(log.first { $0["method"] as? String == "PUT" })
        XCTAssertEqual(part["content_range"] as? String, "bytes 8388608-16777215/\(size)")
        XCTAssertEqual(part["status"] as? Int, 200)
        XCTAssertGreaterThan(part["bytes_sent"] as? Int ?? 0, 0, "the part's JSON answer")
        let others = log.filter { $0["path"] as? String != "/oauth2/token" && $0["method"] as? String != "PUT" }
        XCTAssertFalse(others.isEmpty)
        for line in others {
            XCTAssertTrue(line["grant_type"] is NSNull && line["content_range"] is NSNull, "\(line)")
        }
        let raw = try String(contentsOf: fixture.sim.dataDirectory.appendingPathComponent("requests.jsonl"), encoding: .utf8)
        XCTAssertFalse(raw.contains(app["client_secret"]!), "secrets never reach the log")
    }
}
