import BoxTestSupport
import Foundation
import XCTest

/// The URL a shared link names (`url`, `vanity_url`: what `boxfs link` prints) answers a browser, as Box's web app
/// does, and the shared-item API takes it: `GET /s/<token>`, `GET /v/<name>`, `GET /2.0/shared_items`.
final class SharedLinkPageTests: XCTestCase {
    private func share(_ fixture: SimFixture, _ kind: String, _ id: String, _ link: Any) throws -> [String: Any] {
        let answer = try fixture.postJSON("/2.0/\(kind)/\(id)?fields=shared_link,name", ["shared_link": link],
                                          token: fixture.sim.developerToken, method: "PUT")
        XCTAssertEqual(answer.status, 200, answer.text)
        return try XCTUnwrap(try answer.json()["shared_link"] as? [String: Any])
    }

    private func href(_ page: String, id: String) -> String? {
        guard let start = page.range(of: "id=\"\(id)\" href=\"") else { return nil }
        let rest = page[start.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]).replacingOccurrences(of: "&amp;", with: "&") }
    }

    func testAnOpenFileLinksURLIsAPageNamingTheFileThatLeadsToItsContent() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let id = try fixture.id(of: "hello.txt")
        let link = try share(fixture, "files", id, [String: Any]())
        let url = try XCTUnwrap(link["url"] as? String)

        let page = try Curl.run(url)
        XCTAssertEqual(page.status, 200, page.text)
        XCTAssertTrue(page.headers["content-type"]?.hasPrefix("text/html") == true)
        XCTAssertTrue(page.text.contains("<h1>hello.txt</h1>"), page.text)
        let download = try XCTUnwrap(href(page.text, id: "download"), "a download link on the page")
        XCTAssertEqual(download, link["download_url"] as? String)
        let content = try Curl.run(download, extra: ["-L"])
        XCTAssertEqual(content.status, 200)
        XCTAssertEqual(content.text, "hello world\n")

        let item = try fixture.get("/2.0/shared_items", headers: ["BoxApi": "shared_link=\(url)"])
        XCTAssertEqual(item.status, 200, item.text)
        XCTAssertEqual(try item.json()["id"] as? String, id, "the shared-item API takes the same URL")

        let previewOnly = try share(fixture, "files", id, ["permissions": ["can_download": false]])
        XCTAssertEqual(previewOnly["url"] as? String, url)
        XCTAssertNil(href(try Curl.run(url).text, id: "download"), "no download link when downloads are off")

        XCTAssertEqual(try fixture.postJSON("/2.0/files/\(id)", ["shared_link": NSNull()], token: fixture.sim.developerToken,
                                            method: "PUT").status, 200)
        let removed = try Curl.run(url)
        XCTAssertEqual(removed.status, 404, "a removed link's URL stops working")
        XCTAssertTrue(removed.text.contains("removed or is unavailable"))
        XCTAssertEqual(try Curl.run(fixture.sim.baseURL + "/s/nosuchtoken").status, 404)
    }

    func testAFolderLinkAndAVanityURLShowTheFolderAndItsNamesEscaped() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let docs = try fixture.id(of: "docs")
        let a = try fixture.id(of: "docs/a.txt")
        XCTAssertEqual(try fixture.postJSON("/2.0/files/\(a)", ["name": "a<b>&.txt"], token: fixture.sim.developerToken,
                                            method: "PUT").status, 200)
        let link = try share(fixture, "folders", docs, ["access": "open", "vanity_name": "team-docs"])
        for url in [try XCTUnwrap(link["url"] as? String), try XCTUnwrap(link["vanity_url"] as? String)] {
            let page = try Curl.run(url)
            XCTAssertEqual(page.status, 200, url)
            XCTAssertTrue(page.text.contains("<h1>docs</h1>"), page.text)
            XCTAssertTrue(page.text.contains("<li>sub</li>"), page.text)
            XCTAssertTrue(page.text.contains("<li>a&lt;b&gt;&amp;.txt</li>"), page.text)
            XCTAssertNil(href(page.text, id: "download"), "folders have no download_url")
        }
    }

    func testLinksThatNeedAPasswordOrALoginShowAPageThatNamesNothing() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let id = try fixture.id(of: "hello.txt")
        let url = try XCTUnwrap(try share(fixture, "files", id, ["access": "open", "password": "Secret123"])["url"] as? String)
        let locked = try Curl.run(url)
        XCTAssertEqual(locked.status, 200)
        XCTAssertTrue(locked.text.contains("password protected"), locked.text)
        XCTAssertFalse(locked.text.contains("hello.txt"), "the name is not shown without the password")
        XCTAssertEqual(try fixture.get("/2.0/shared_items", headers: ["BoxApi": "shared_link=\(url)&shared_link_password=Secret123"]).status, 200)

        _ = try share(fixture, "files", id, ["access": "company"])
        let company = try Curl.run(url)
        XCTAssertEqual(company.status, 200)
        XCTAssertTrue(company.text.contains("Sign in"), company.text)
        XCTAssertFalse(company.text.contains("hello.txt"))
    }
}
