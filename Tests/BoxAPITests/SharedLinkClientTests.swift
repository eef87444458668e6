import CurlHTTP
import Foundation
import XCTest

@testable import BoxAPI

/// `BoxClient.withSharedLink` and `sharedItem()`: the `BoxApi` header on API calls of the copy only, and
/// Box's shared-link refusals as errors that never carry the password.
final class SharedLinkClientTests: XCTestCase {
    func testWithSharedLinkIsACopyThatSendsTheBoxApiHeader() async throws {
        let folderJSON = #"{"type":"folder","id":"77","name":"Shared","etag":"0"}"#
        let http = ScriptedHTTP { _, _ in ScriptedHTTP.response(200, json: folderJSON) }
        let client = BoxClient.scripted(http)
        let shared = client.withSharedLink(url: "https://app.box.com/s/abc123", password: "Pass-word1")
        let item = try await shared.sharedItem()
        _ = try await client.file(id: "42")
        XCTAssertEqual(item.id, "77")
        XCTAssertEqual(item.kind, .folder)
        let sent = http.requests
        XCTAssertEqual(sent.first.map { BoxURL.path(of: $0.url) }, "/2.0/shared_items")
        XCTAssertEqual(sent.first?.headers["BoxApi"], "shared_link=https://app.box.com/s/abc123&shared_link_password=Pass-word1")
        XCTAssertNil(sent.last?.headers["BoxApi"], "the original client is unchanged")
        XCTAssertEqual(shared.withSharedLink(url: "https://app.box.com/s/other").header("BoxApi"),
                       "shared_link=https://app.box.com/s/other", "replaces, never duplicates")
    }

    func testAWrongPasswordIsRecognisedAndNeverEchoed() async throws {
        let http = ScriptedHTTP { _, _ in
            ScriptedHTTP.response(403, json: #"{"type":"error","status":403,"code":"incorrect_shared_item_password","#
                + #""message":"The shared link password is incorrect","request_id":"r9"}"#)
        }
        let client = BoxClient.scripted(http).withSharedLink(url: "https://app.box.com/s/abc", password: "Sekrit-99")
        do {
            _ = try await client.sharedItem()
            XCTFail("expected an error")
        } catch let error as BoxAPIError {
            XCTAssertTrue(error.isIncorrectSharedLinkPassword)
            XCTAssertEqual(error.kind, .forbidden)
            XCTAssertFalse(String(describing: error).contains("Sekrit-99"))
            XCTAssertFalse(String(describing: error).contains("/s/abc"), "errors name method and path only")
        }
        XCTAssertEqual(http.requests.count, 1, "a refusal is not retried")
    }
}
