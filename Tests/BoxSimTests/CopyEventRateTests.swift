import BoxTestSupport
import Foundation
import XCTest

/// Copy of files and folders, the user event stream with its long poll, and the configured rate limit.
final class CopyEventRateTests: XCTestCase {
    func testCopyFileAndFolder() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let token = fixture.sim.developerToken
        let helloID = try fixture.id(of: "hello.txt")
        let docsID = try fixture.id(of: "docs")
        let copied = try fixture.postJSON("/2.0/files/\(helloID)/copy", ["parent": ["id": docsID], "name": "copy.txt"],
                                          token: token)
        XCTAssertEqual(copied.status, 201, copied.text)
        let file = try copied.json()
        XCTAssertNotEqual(file["id"] as? String, helloID)
        XCTAssertEqual(file["sha1"] as? String, try fixture.getJSON("/2.0/files/\(helloID)")["sha1"] as? String)
        let location = try XCTUnwrap(try fixture.get("/2.0/files/\(file["id"] as? String ?? "")/content").headers["location"])
        XCTAssertEqual(try Curl.run(location).text, "hello world\n")

        let again = try fixture.postJSON("/2.0/files/\(helloID)/copy", ["parent": ["id": docsID], "name": "COPY.txt"],
                                         token: token)
        XCTAssertEqual(again.status, 409)
        XCTAssertNotNil((try again.json()["context_info"] as? [String: Any])?["conflicts"] as? [String: Any])

        let folderCopy = try fixture.postJSON("/2.0/folders/\(docsID)/copy", ["parent": ["id": "0"], "name": "docs2"],
                                              token: token)
        XCTAssertEqual(folderCopy.status, 201, folderCopy.text)
        XCTAssertEqual(try fixture.getJSON("/2.0/files/\(try fixture.id(of: "docs2/sub/deep.txt"))")["size"] as? Int, 5)
        let subID = try fixture.id(of: "docs/sub")
        XCTAssertEqual(try fixture.postJSON("/2.0/folders/\(docsID)/copy", ["parent": ["id": subID]], token: token).status,
                       400, "into its own subfolder")
        XCTAssertEqual(try fixture.postJSON("/2.0/folders/0/copy", ["parent": ["id": docsID]], token: token).status, 500)
    }

    func testEventsRecordWritesAndLongPollWakes() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let token = fixture.sim.developerToken
        let now = try fixture.getJSON("/2.0/events?stream_position=now")
        XCTAssertEqual((now["entries"] as? [Any])?.count, 0)
        let start = try XCTUnwrap(now["next_stream_position"] as? Int)

        let options = try Curl.run(fixture.sim.baseURL + "/2.0/events", token: token, method: "OPTIONS")
        let server = try XCTUnwrap((try options.json()["entries"] as? [[String: Any]])?.first)
        let pollURL = try XCTUnwrap(server["url"] as? String)
        let poll = Task { try Curl.run(pollURL + "&stream_position=\(start)") }
        try await Task.sleep(nanoseconds: 300_000_000)

        let folder = try fixture.postJSON("/2.0/folders", ["name": "evt", "parent": ["id": "0"]], token: token)
        let folderID = try XCTUnwrap(try folder.json()["id"] as? String)
        let woken = try await poll.value
        XCTAssertEqual(woken.text, "{\"version\":1,\"message\":\"new_change\"}", "as Box's Events/GetNewEvents.json")
        let local = try UploadFiles.random(size: 100)
        defer { try? FileManager.default.removeItem(at: local) }
        let uploaded = try fixture.upload(attributes: ["name": "e.bin", "parent": ["id": folderID]], file: local)
        let fileID = try XCTUnwrap((try uploaded.json()["entries"] as? [[String: Any]])?.first?["id"] as? String)
        _ = try fixture.postJSON("/2.0/files/\(fileID)", ["name": "f.bin"], token: token, method: "PUT")
        _ = try fixture.postJSON("/2.0/files/\(fileID)", ["parent": ["id": "0"]], token: token, method: "PUT")
        _ = try Curl.run(fixture.sim.baseURL + "/2.0/files/\(fileID)", token: token, method: "DELETE")

        let page = try fixture.getJSON("/2.0/events?stream_position=\(start)")
        let entries = try XCTUnwrap(page["entries"] as? [[String: Any]])
        XCTAssertEqual(entries.compactMap { $0["event_type"] as? String },
                       ["ITEM_CREATE", "ITEM_UPLOAD", "ITEM_RENAME", "ITEM_MOVE", "ITEM_TRASH"])
        XCTAssertEqual((entries[1]["source"] as? [String: Any])?["id"] as? String, fileID)
        let next = try XCTUnwrap(page["next_stream_position"] as? Int)
        XCTAssertEqual((try fixture.getJSON("/2.0/events?stream_position=\(next)")["entries"] as? [Any])?.count, 0)

        XCTAssertEqual(try fixture.postJSON("/_control/settings", ["long_poll_timeout": 1], method: "PUT").status, 200)
        XCTAssertEqual(try Curl.run(pollURL + "&stream_position=\(next)").text, "{\"version\":1,\"message\":\"reconnect\"}")
    }

    func testConfiguredRateLimitAnswers429WithRetryAfter() async throws {
        let fixture = try await SimFixture.start(extraArgs: ["--rate-limit", "3"])
        defer { fixture.stop() }
        let statuses = try (0..<4).map { _ in try fixture.get("/2.0/users/me") }
        XCTAssertEqual(statuses.map(\.status), [200, 200, 200, 429])
        XCTAssertEqual(try statuses[3].json()["code"] as? String, "rate_limit_exceeded")
        XCTAssertNotNil(Int(statuses[3].headers["retry-after"] ?? ""))
        XCTAssertEqual(try fixture.postJSON("/_control/settings", ["rate_limit_per_minute": NSNull()], method: "PUT").status,
                       200)
        XCTAssertEqual(try fixture.get("/2.0/users/me").status, 200)
    }
}
