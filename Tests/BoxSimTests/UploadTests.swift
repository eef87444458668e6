import BoxTestSupport
import Foundation
import XCTest

/// Direct multipart uploads (`POST /api/2.0/files/content`, `POST /api/2.0/files/{id}/content`) and the
/// preflight `OPTIONS /2.0/files/content`, sent by the curl command line as Box clients send them.
final class UploadTests: XCTestCase {
    func testMultipartUploadStoresExactBytesWithSHA1AndContentTimes() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let local = try UploadFiles.random(size: 3 * 1024 * 1024 + 17)
        defer { try? FileManager.default.removeItem(at: local) }
        let sha1 = try Curl.sha1(of: local)
        let attributes: [String: Any] = ["name": "upload.bin", "parent": ["id": "0"],
                                         "content_created_at": "2020-01-02T03:04:05Z",
                                         "content_modified_at": "2021-06-07T08:09:10+02:00"]
        let result = try fixture.upload(attributes: attributes, file: local, headers: ["Content-MD5": sha1],
                                        chunked: true)
        XCTAssertEqual(result.status, 201, result.text)
        let files = try result.json()
        XCTAssertEqual(files["total_count"] as? Int, 1)
        let entry = try XCTUnwrap((files["entries"] as? [[String: Any]])?.first)
        XCTAssertEqual(entry["type"] as? String, "file")
        XCTAssertEqual(entry["name"] as? String, "upload.bin")
        XCTAssertEqual(entry["size"] as? Int, 3 * 1024 * 1024 + 17)
        XCTAssertEqual(entry["sha1"] as? String, sha1)
        XCTAssertEqual((entry["file_version"] as? [String: Any])?["sha1"] as? String, sha1)
        XCTAssertEqual(entry["content_created_at"] as? String, "2020-01-02T03:04:05+00:00")
        XCTAssertEqual(entry["content_modified_at"] as? String, "2021-06-07T06:09:10+00:00")
        XCTAssertEqual((entry["parent"] as? [String: Any])?["id"] as? String, "0")
        let fileID = try XCTUnwrap(entry["id"] as? String)
        XCTAssertEqual(try fixture.id(of: "upload.bin"), fileID)

        let location = try XCTUnwrap(try fixture.get("/2.0/files/\(fileID)/content").headers["location"])
        XCTAssertEqual(try Curl.run(location).body, try Data(contentsOf: local))

        // The file part may be named `contents`, with a dummy filename, and may come without Content-MD5.
        let second = try fixture.upload(attributes: ["name": "second.bin", "parent": ["id": "0"]], file: local,
                                        partName: "contents", filename: "dummy")
        XCTAssertEqual(second.status, 201, second.text)
        let me = try fixture.getJSON("/2.0/users/me")
        XCTAssertEqual(me["space_used"] as? Int, 2 * (3 * 1024 * 1024 + 17) + fixture.seedBytes)
    }

    func testUploadErrorsAnswerAsBox() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let local = try UploadFiles.random(size: 1000)
        defer { try? FileManager.default.removeItem(at: local) }
        let root: [String: Any] = ["name": "x.bin", "parent": ["id": "0"]]

        let late = try fixture.upload(attributes: root, file: local, attributesLast: true)
        XCTAssertEqual(late.status, 400)
        XCTAssertEqual(try late.json()["code"] as? String, "metadata_after_file_contents")

        let digest = try fixture.upload(attributes: root, file: local,
                                        headers: ["Content-MD5": String(repeating: "0", count: 40)])
        XCTAssertEqual(digest.status, 400)
        XCTAssertEqual(try digest.json()["code"] as? String, "bad_digest")
        XCTAssertEqual(try fixture.get("/2.0/folders/0/items").text.contains("x.bin"), false)

        let existing = try fixture.id(of: "hello.txt")
        let clash = try fixture.upload(attributes: ["name": "HELLO.TXT", "parent": ["id": "0"]], file: local)
        XCTAssertEqual(clash.status, 409)
        let body = try clash.json()
        XCTAssertEqual(body["code"] as? String, "item_name_in_use")
        let conflict = try XCTUnwrap((body["context_info"] as? [String: Any])?["conflicts"] as? [String: Any],
                                     "conflicts is one object")
        XCTAssertEqual(conflict["id"] as? String, existing)
        XCTAssertEqual(conflict["sha1"] as? String, try Curl.sha1(of: fixture.seed.appendingPathComponent("hello.txt")))
        XCTAssertNotNil((conflict["file_version"] as? [String: Any])?["id"] as? String)

        XCTAssertEqual(try fixture.upload(attributes: ["name": "a", "parent": ["id": "987654"]], file: local).status, 404)
        let badName = try fixture.upload(attributes: ["name": "a/b", "parent": ["id": "0"]], file: local)
        XCTAssertEqual(try badName.json()["code"] as? String, "item_name_invalid")
        let noAuth = try Curl.run(fixture.sim.baseURL + "/api/2.0/files/content", method: "POST",
                                  extra: ["-F", "attributes={}", "-F", "file=@\(local.path)"])
        XCTAssertEqual(noAuth.status, 401)
    }

    func testNewVersionHonoursIfMatchAndRenames() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let local = try UploadFiles.random(size: 4096)
        defer { try? FileManager.default.removeItem(at: local) }
        let fileID = try fixture.id(of: "docs/a.txt")
        let before = try fixture.getJSON("/2.0/files/\(fileID)")
        let etag = try XCTUnwrap(before["etag"] as? String)

        let stale = try fixture.upload(path: "/api/2.0/files/\(fileID)/content", attributes: [:], file: local,
                                       headers: ["If-Match": "999"])
        XCTAssertEqual(stale.status, 412)
        XCTAssertEqual(try stale.json()["code"] as? String, "precondition_failed")

        let result = try fixture.upload(path: "/api/2.0/files/\(fileID)/content",
                                        attributes: ["name": "a-v2.txt", "content_modified_at": "2022-02-02T02:02:02Z"],
                                        file: local, headers: ["If-Match": etag])
        XCTAssertEqual(result.status, 200, result.text)
        let entry = try XCTUnwrap((try result.json()["entries"] as? [[String: Any]])?.first)
        XCTAssertEqual(entry["id"] as? String, fileID)
        XCTAssertEqual(entry["name"] as? String, "a-v2.txt")
        XCTAssertEqual(entry["sha1"] as? String, try Curl.sha1(of: local))
        XCTAssertEqual(entry["size"] as? Int, 4096)
        XCTAssertEqual(entry["content_modified_at"] as? String, "2022-02-02T02:02:02+00:00")
        XCTAssertNotEqual(entry["etag"] as? String, etag)
        XCTAssertNotEqual((entry["file_version"] as? [String: Any])?["id"] as? String,
                          (before["file_version"] as? [String: Any])?["id"] as? String)
        let location = try XCTUnwrap(try fixture.get("/2.0/files/\(fileID)/content").headers["location"])
        XCTAssertEqual(try Curl.run(location).body, try Data(contentsOf: local))
        let old = try fixture.upload(path: "/api/2.0/files/\(fileID)/content", attributes: [:], file: local,
                                     headers: ["If-Match": etag])
        XCTAssertEqual(old.status, 412, "the old etag no longer matches")
    }

    func testPreflightChecksNameQuotaAndSize() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        for path in ["/2.0/files/content", "/2.0/files/content/"] {
            let free = try fixture.postJSON(path, ["name": "new.bin", "parent": ["id": "0"], "size": 1000],
                                            token: fixture.sim.developerToken, method: "OPTIONS")
            XCTAssertEqual(free.status, 200, "\(path): \(free.text)")
            let url = try XCTUnwrap(try free.json()["upload_url"] as? String)
            XCTAssertTrue(url.hasPrefix(fixture.sim.baseURL + "/api/2.0/files/content"), url)
        }
        let clash = try fixture.postJSON("/2.0/files/content", ["name": "Hello.txt", "parent": ["id": "0"], "size": 5],
                                         token: fixture.sim.developerToken, method: "OPTIONS")
        XCTAssertEqual(clash.status, 409)
        let conflict = (try clash.json()["context_info"] as? [String: Any])?["conflicts"] as? [String: Any]
        XCTAssertEqual(conflict?["id"] as? String, try fixture.id(of: "hello.txt"))

        let userID = try XCTUnwrap(try fixture.getJSON("/2.0/users/me")["id"] as? String)
        let limits = try fixture.postJSON("/_control/users/\(userID)",
                                          ["space_amount": fixture.seedBytes + 2000, "max_upload_size": 1500],
                                          method: "PUT")
        XCTAssertEqual(limits.status, 200, limits.text)
        let tooBig = try fixture.postJSON("/2.0/files/content", ["name": "n.bin", "parent": ["id": "0"], "size": 1600],
                                          token: fixture.sim.developerToken, method: "OPTIONS")
        XCTAssertEqual(tooBig.status, 403)
        XCTAssertEqual(try tooBig.json()["code"] as? String, "file_size_limit_exceeded")

        let local = try UploadFiles.random(size: 1200)
        defer { try? FileManager.default.removeItem(at: local) }
        XCTAssertEqual(try fixture.upload(attributes: ["name": "one.bin", "parent": ["id": "0"]], file: local).status, 201)
        let full = try fixture.upload(attributes: ["name": "two.bin", "parent": ["id": "0"]], file: local)
        XCTAssertEqual(full.status, 403)
        XCTAssertEqual(try full.json()["code"] as? String, "storage_limit_exceeded")
        let large = try UploadFiles.random(size: 1600)
        defer { try? FileManager.default.removeItem(at: large) }
        let sized = try fixture.upload(attributes: ["name": "three.bin", "parent": ["id": "0"]], file: large)
        XCTAssertEqual(try sized.json()["code"] as? String, "file_size_limit_exceeded")
    }

    func testDirectUploadAbove50MBIsRefused() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let local = try UploadFiles.sparse(size: 50 * 1024 * 1024 + 1)
        defer { try? FileManager.default.removeItem(at: local) }
        let result = try fixture.upload(attributes: ["name": "huge.bin", "parent": ["id": "0"]], file: local)
        XCTAssertEqual(result.status, 413)
        XCTAssertEqual(try result.json()["code"] as? String, "request_entity_too_large")
        XCTAssertFalse(try fixture.get("/2.0/folders/0/items").text.contains("huge.bin"))
    }
}
