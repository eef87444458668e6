import BoxTestSupport
import Foundation
import XCTest

/// `GET /2.0/search`: names, descriptions and text content; Box's operators (phrases, AND, OR, NOT);
/// `ancestor_folder_ids`, `type`, `file_extensions`, `content_types`, `trash_content`; offset paging, `fields`;
/// only what the caller can see.
final class SearchTests: XCTestCase {
    func names(_ fixture: SimFixture, _ query: String, token: String? = nil) throws -> [String] {
        let result = try fixture.call("GET", "/2.0/search?" + query, token: token)
        XCTAssertEqual(result.status, 200, "\(query): \(result.text)")
        return (try result.json()["entries"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    }

    func testNamesDescriptionsAndContentWithBoxsOperators() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let found = try fixture.get("/2.0/search?query=needle")
        try assertValid("get_search", found)
        XCTAssertEqual(try found.json()["type"] as? String, "search_results_items")
        XCTAssertEqual(try found.json()["total_count"] as? Int, 1)
        XCTAssertEqual(try names(fixture, "query=needle"), ["a.txt"], "text content")
        XCTAssertEqual(try names(fixture, "query=HELLO"), ["hello.txt"], "any case")
        XCTAssertEqual(try names(fixture, "query=docs&type=folder"), ["docs"])
        XCTAssertEqual(try names(fixture, "query=docs&type=file"), [])

        let deepID = try fixture.id(of: "docs/sub/deep.txt")
        XCTAssertEqual(try fixture.call("PUT", "/2.0/files/\(deepID)", json: ["description": "Quarterly report"]).status, 200)
        XCTAssertEqual(try names(fixture, "query=quarterly"), ["deep.txt"], "description")
        XCTAssertEqual(try names(fixture, "query=quarterly&content_types=name,file_content"), [])
        XCTAssertEqual(try names(fixture, "query=alpha&content_types=file_content"), ["a.txt"])
        XCTAssertEqual(try names(fixture, "query=alpha&content_types=name"), [])

        XCTAssertEqual(try names(fixture, "query=%22needle%20line%22"), ["a.txt"], "phrase")
        XCTAssertEqual(try names(fixture, "query=%22line%20needle%22"), [], "phrase order")
        XCTAssertEqual(try names(fixture, "query=alpha%20AND%20needle"), ["a.txt"])
        XCTAssertEqual(try names(fixture, "query=alpha%20AND%20NOT%20needle"), [])
        XCTAssertEqual(Set(try names(fixture, "query=alpha%20deep")), ["a.txt", "deep.txt"], "implicit OR")
        XCTAssertEqual(Set(try names(fixture, "query=alpha%20OR%20deep")), ["a.txt", "deep.txt"])
        XCTAssertEqual(try names(fixture, "query=alph"), [], "whole words")

        // Relevance: a name match before a description match.
        let docsID = try fixture.id(of: "docs")
        XCTAssertEqual(try fixture.call("PUT", "/2.0/folders/\(docsID)", json: ["description": "hello notes"]).status, 200)
        XCTAssertEqual(try names(fixture, "query=hello"), ["hello.txt", "docs"])

        let missing = try fixture.get("/2.0/search")
        XCTAssertEqual(missing.status, 400)
        try assertValid("get_search", missing)
        XCTAssertEqual(try fixture.get("/2.0/search?query=x&content_types=bodies").status, 400)
    }

    func testFiltersPagingAndFields() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let docsID = try fixture.id(of: "docs")
        let manyID = try fixture.id(of: "many")
        XCTAssertEqual(try names(fixture, "query=deep&ancestor_folder_ids=\(docsID)"), ["deep.txt"], "at any depth")
        XCTAssertEqual(try names(fixture, "query=deep&ancestor_folder_ids=\(manyID)"), [])
        XCTAssertEqual(try names(fixture, "query=deep&ancestor_folder_ids=\(manyID),\(docsID)"), ["deep.txt"])
        let unknown = try fixture.get("/2.0/search?query=deep&ancestor_folder_ids=999999")
        XCTAssertEqual(unknown.status, 404)
        try assertValid("get_search", unknown)
        XCTAssertEqual(try names(fixture, "query=big&file_extensions=bin"), ["big.bin"])
        XCTAssertEqual(try names(fixture, "query=big&file_extensions=txt,md"), [])

        let all = try fixture.getJSON("/2.0/search?query=content")
        XCTAssertEqual(all["total_count"] as? Int, 12)
        XCTAssertEqual(all["limit"] as? Int, 30)
        let page = try fixture.get("/2.0/search?query=content&limit=5&offset=10&fields=name")
        try assertValid("get_search", page)
        let entries = try XCTUnwrap(try page.json()["entries"] as? [[String: Any]])
        XCTAssertEqual(entries.count, 2)
        XCTAssertEqual(try page.json()["total_count"] as? Int, 12)
        XCTAssertEqual(entries.first.map { Set($0.keys) }, ["type", "id", "etag", "name"])
        XCTAssertEqual(try fixture.getJSON("/2.0/search?query=content&limit=500")["limit"] as? Int, 200)
        XCTAssertEqual(try fixture.get("/2.0/search?query=content&offset=10001").status, 400)
        let byDate = try names(fixture, "query=content&sort=modified_at&direction=ASC&limit=200")
        XCTAssertEqual(byDate.count, 12)

        XCTAssertEqual(try names(fixture, "query=big%20content&size_range=6000000,"), ["big.bin"], "files of 6 MB or more")
        XCTAssertEqual(try names(fixture, "query=big%20content&size_range=,100").count, 12, "files up to 100 bytes")
        XCTAssertEqual(try names(fixture, "query=content&created_at_range=2999-01-01T00:00:00Z,"), [], "created later")
        XCTAssertEqual(try names(fixture, "query=content&updated_at_range=,2999-01-01T00:00:00Z").count, 12)
        XCTAssertEqual(try fixture.get("/2.0/search?query=content&size_range=a,b").status, 400)
        let adminID = try XCTUnwrap(try fixture.getJSON("/2.0/users/me")["id"] as? String)
        XCTAssertEqual(try names(fixture, "query=content&owner_user_ids=\(adminID)").count, 12)
        XCTAssertEqual(try names(fixture, "query=content&owner_user_ids=1"), [])

        let helloID = try fixture.id(of: "hello.txt")
        XCTAssertEqual(try fixture.call("DELETE", "/2.0/files/\(helloID)").status, 204)
        XCTAssertEqual(try names(fixture, "query=hello"), [], "the trash is left out by default")
        XCTAssertEqual(try names(fixture, "query=hello&trash_content=trashed_only"), ["hello.txt"])
        XCTAssertEqual(try names(fixture, "query=hello%20alpha&trash_content=all_items").sorted(), ["a.txt", "hello.txt"])
    }

    func testOnlyWhatTheCallerCanSee() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let otherID = try fixture.createUser(name: "Other")
        let token = try XCTUnwrap(try fixture.postJSON("/_control/tokens", ["user_id": otherID]).json()["access_token"]
            as? String)
        _ = try fixture.uploadNew("mine.txt", text: "needle of the other user\n", token: token)
        XCTAssertEqual(try names(fixture, "query=needle"), ["a.txt"])
        XCTAssertEqual(try names(fixture, "query=needle", token: token), ["mine.txt"])
        let docsID = try fixture.id(of: "docs")
        XCTAssertEqual(try fixture.call("GET", "/2.0/search?query=needle&ancestor_folder_ids=\(docsID)", token: token).status,
                       404, "another user's folder")
    }
}
