import CurlHTTP
import Foundation
import XCTest

@testable import BoxAPI

/// Folder create, rename/move, delete and copy: bodies, If-Match, retry rules, conflicts.
final class ItemWriteBehaviourTests: XCTestCase {
    func testCreateFolderIsNotRetriedAndExposesArrayConflicts() async throws {
        let conflict = #"{"type":"error","status":409,"code":"item_name_in_use","context_info":{"conflicts":[{"type":"folder","id":"3","name":"Docs","etag":"0"}]}}"#
        let http = ScriptedHTTP { _, _ in ScriptedHTTP.response(409, json: conflict) }
        do {
            _ = try await BoxClient.scripted(http).createFolder(name: "docs", parentID: "0")
            XCTFail("expected 409")
        } catch let error as BoxAPIError {
            XCTAssertTrue(error.isNameInUse)
            XCTAssertEqual(error.conflicts.map(\.kind), [.folder])
            XCTAssertEqual(error.conflicts.map(\.name), ["Docs"])
        }
        XCTAssertEqual(http.requests.count, 1)
        XCTAssertEqual(String(decoding: try bodyBytes(http.requests[0].body), as: UTF8.self),
                       #"{"name":"docs","parent":{"id":"0"}}"#)
    }

    /// A guarded rename (If-Match) is retried too, each attempt with the same If-Match, so a repeat can never
    /// overwrite a change made meanwhile (Box answers it 412); a 5xx that lasts ends in the 5xx.
    func testRenamesAreRetriedAndAGuardedRepeatKeepsItsIfMatch() async throws {
        let folderJSON = #"{"type":"folder","id":"8","name":"new","etag":"2"}"#
        let flaky = ScriptedHTTP { _, index in
            index == 0 ? ScriptedHTTP.response(502) : ScriptedHTTP.response(200, json: folderJSON)
        }
        let renamed = try await BoxClient.scripted(flaky).updateFolder(id: "8", name: "new")
        XCTAssertEqual(renamed.name, "new")
        XCTAssertEqual(flaky.requests.count, 2)
        XCTAssertEqual(flaky.requests[0].method, .put)

        let guarded = ScriptedHTTP { _, _ in ScriptedHTTP.response(502) }
        do {
            _ = try await BoxClient.scripted(guarded).updateFile(id: "8", parentID: "9", ifMatch: "1")
            XCTFail("expected 502")
        } catch {}
        XCTAssertGreaterThan(guarded.requests.count, 1, "a 502 is retried")
        for request in guarded.requests {
            XCTAssertEqual(request.headers["If-Match"], "1")
            XCTAssertEqual(String(decoding: try bodyBytes(request.body), as: UTF8.self), #"{"parent":{"id":"9"}}"#)
        }
    }

    func testDeletesAndCopy() async throws {
        let http = ScriptedHTTP { request, _ in
            request.method == .delete
                ? ScriptedHTTP.response(204)
                : ScriptedHTTP.response(201, json: #"{"type":"file","id":"99","name":"copy.txt"}"#)
        }
        let client = BoxClient.scripted(http)
        try await client.deleteFolder(id: "5", recursive: true, ifMatch: "3")
        try await client.deleteFile(id: "6")
        let copy = try await client.copyFile(id: "6", toParentID: "5", name: "copy.txt")
        XCTAssertEqual(copy.id, "99")
        XCTAssertEqual(http.requests.map(\.url), [
            "https://api.test/2.0/folders/5?recursive=true", "https://api.test/2.0/files/6",
            "https://api.test/2.0/files/6/copy?fields=" + BoxURL.encode(BoxItem.fields),
        ])
        XCTAssertEqual(http.requests[0].headers["If-Match"], "3")
        XCTAssertNil(http.requests[1].headers["If-Match"])
    }

    func testPreflightIsAnOptionsCallWithJSON() async throws {
        let http = ScriptedHTTP { _, _ in
            ScriptedHTTP.response(200, json: #"{"upload_url":"https://upload.test/api/2.0/files/content?upload_session_id=1","upload_token":null}"#)
        }
        let answer = try await BoxClient.scripted(http).preflightUpload(name: "a.txt", parentID: "0", size: 10)
        XCTAssertEqual(answer.uploadURL, "https://upload.test/api/2.0/files/content?upload_session_id=1")
        XCTAssertEqual(http.requests[0].method, .options)
        XCTAssertEqual(http.requests[0].url, "https://api.test/2.0/files/content")
        XCTAssertEqual(String(decoding: try bodyBytes(http.requests[0].body), as: UTF8.self),
                       #"{"name":"a.txt","parent":{"id":"0"},"size":10}"#)
    }
}
