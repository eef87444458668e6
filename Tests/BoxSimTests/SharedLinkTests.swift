import BoxTestSupport
import Foundation
import XCTest

/// Shared links: set/remove on files and folders (`PUT` with `shared_link`), `GET /2.0/shared_items` with the
/// `BoxApi` header, traversal and download of another user's shared folder, passwords, token exchange.
final class SharedLinkTests: XCTestCase {
    var fixture: SimFixture!

    override func setUp() async throws {
        fixture = try await SimFixture.start()
    }

    override func tearDown() async throws {
        fixture.stop()
    }

    var token: String { fixture.sim.developerToken }

    func share(_ kind: String, _ id: String, _ link: Any, token: String? = nil) throws -> CurlResult {
        try fixture.postJSON("/2.0/\(kind)/\(id)?fields=shared_link,etag", ["shared_link": link],
                             token: token ?? self.token, method: "PUT")
    }

    func boxAPI(_ url: String, password: String? = nil) -> [String: String] {
        ["BoxApi": "shared_link=\(url)" + (password.map { "&shared_link_password=\($0)" } ?? "")]
    }

    /// Making, changing and removing a link go to the event stream (ITEM_SHARED_CREATE, _UPDATE, _UNSHARE), so a
    /// client following it learns of the new link (and of the etag each change moves).
    func testLinkChangesAreEvents() throws {
        let id = try fixture.id(of: "hello.txt")
        let position = try fixture.streamPosition()
        XCTAssertEqual(try share("files", id, ["access": "open"]).status, 200)
        XCTAssertEqual(try share("files", id, ["access": "company"]).status, 200)
        XCTAssertEqual(try share("files", id, NSNull()).status, 200)
        XCTAssertEqual(try share("files", id, NSNull()).status, 200, "removing no link changes nothing")
        let changes = try fixture.changes(after: position)
        XCTAssertEqual(changes.map(\.type), ["ITEM_SHARED_CREATE", "ITEM_SHARED_UPDATE", "ITEM_SHARED_UNSHARE"])
        XCTAssertEqual(Set(changes.compactMap(\.id)), [id])
    }

    func testSettingAndRemovingAFileLinkFollowsBoxsRules() throws {
        let id = try fixture.id(of: "hello.txt")
        let created = try share("files", id, [String: Any]())
        XCTAssertEqual(created.status, 200, created.text)
        let link = try XCTUnwrap(try created.json()["shared_link"] as? [String: Any])
        let recorded = try JSONSerialization.jsonObject(with: Data(contentsOf: ShapeComparison.recordedDirectory.appendingPathComponent("Files/GetFileSharedLink.json"))) as? [String: Any]
        let recordedKeys = Set((recorded?["shared_link"] as? [String: Any] ?? [:]).keys)
        XCTAssertTrue(recordedKeys.isSubset(of: Set(link.keys)), "missing: \(recordedKeys.subtracting(link.keys))")
        let url = try XCTUnwrap(link["url"] as? String)
        XCTAssertTrue(url.hasPrefix(fixture.sim.baseURL + "/s/"), url)
        XCTAssertEqual(link["access"] as? String, "open", "{} takes the default access")
        XCTAssertEqual(link["effective_access"] as? String, "open")
        XCTAssertEqual(link["effective_permission"] as? String, "can_download")
        XCTAssertEqual(link["is_password_enabled"] as? Bool, false)
        XCTAssertTrue((link["download_url"] as? String)?.hasSuffix(".txt") == true)

        XCTAssertEqual(try share("files", id, ["access": "open", "password": "short"]).status, 400, "too short")
        XCTAssertEqual(try share("files", id, ["access": "open", "password": "alllowercase"]).status, 400, "too weak")
        XCTAssertEqual(try share("files", id, ["access": "company", "password": "Secret123"]).status, 400,
                       "a password needs access open")
        XCTAssertEqual(try share("files", id, ["access": "everyone"]).status, 400)
        let protected = try share("files", id, ["access": "open", "password": "Secret123", "vanity_name": "hello-v",
                                                "permissions": ["can_download": false]])
        XCTAssertEqual(protected.status, 200, protected.text)
        let protectedLink = try XCTUnwrap(try protected.json()["shared_link"] as? [String: Any])
        XCTAssertEqual(protectedLink["url"] as? String, url, "updating a link keeps its URL")
        XCTAssertEqual(protectedLink["is_password_enabled"] as? Bool, true)
        XCTAssertEqual(protectedLink["vanity_url"] as? String, fixture.sim.baseURL + "/v/hello-v")
        XCTAssertEqual(protectedLink["effective_permission"] as? String, "can_preview")
        XCTAssertFalse(protected.text.contains("Secret123"), "the password is never shown")
        let passwordRemoved = try share("files", id, ["password": NSNull()])
        XCTAssertEqual((try passwordRemoved.json()["shared_link"] as? [String: Any])?["is_password_enabled"] as? Bool, false)

        let removed = try share("files", id, NSNull())
        XCTAssertEqual(removed.status, 200, removed.text)
        XCTAssertTrue(try removed.json()["shared_link"] is NSNull)
        let gone = try fixture.get("/2.0/shared_items", headers: boxAPI(url))
        XCTAssertEqual(gone.status, 404, gone.text)
        XCTAssertEqual(try gone.json()["code"] as? String, "not_found")
        XCTAssertEqual(try share("folders", "0", [String: Any]()).status, 403, "the root cannot be shared")
    }

    /// A file link's `download_url` serves the file to anyone, without a token, while the link is open, has no
    /// password and allows downloads; it counts as a download of the link.
    func testAFileLinksDownloadURLServesTheFileWithoutAToken() throws {
        let id = try fixture.id(of: "hello.txt")
        let link = try XCTUnwrap(try share("files", id, ["access": "open"]).json()["shared_link"] as? [String: Any])
        let downloadURL = try XCTUnwrap(link["download_url"] as? String)
        XCTAssertTrue(downloadURL.hasPrefix(fixture.sim.baseURL + "/shared/static/") && downloadURL.hasSuffix(".txt"),
                      downloadURL)
        let redirect = try Curl.run(downloadURL)
        XCTAssertEqual(redirect.status, 302, redirect.text)
        XCTAssertTrue(redirect.headers["location"]?.hasPrefix(fixture.sim.baseURL + "/dl/") ?? false)
        XCTAssertEqual(try Curl.run(downloadURL, extra: ["-L"]).text, "hello world\n")
        let counted = try fixture.getJSON("/2.0/files/\(id)?fields=shared_link")["shared_link"] as? [String: Any]
        XCTAssertEqual(counted?["download_count"] as? Int, 2)

        XCTAssertEqual(try share("files", id, ["access": "open", "password": "Secret123"]).status, 200)
        XCTAssertEqual(try Curl.run(downloadURL).status, 403, "a password needs Box's web page")
        XCTAssertEqual(try share("files", id, ["access": "company"]).status, 200)
        XCTAssertEqual(try Curl.run(downloadURL).status, 403, "company links need a login")
        XCTAssertEqual(try share("files", id, ["access": "open", "permissions": ["can_download": false]]).status, 200)
        XCTAssertEqual(try Curl.run(downloadURL).status, 403)
        XCTAssertEqual(try share("files", id, NSNull()).status, 200)
        let gone = try Curl.run(downloadURL)
        XCTAssertEqual(gone.status, 404)
        XCTAssertEqual(try gone.json()["code"] as? String, "not_found")
    }

    func testAnotherUsersSharedFolderCanBeReadThroughTheBoxApiHeaderOnly() throws {
        let files = ["a.txt": Data("alpha\n".utf8), "sub/b.txt": Data("beta\n".utf8)]
        let share = try OtherUserShare.make(fixture.sim, files: files)
        let header = boxAPI(share.url)
        let item = try fixture.get("/2.0/shared_items", headers: header)
        XCTAssertEqual(item.status, 200, item.text)
        XCTAssertEqual(try item.json()["id"] as? String, share.folderID)
        XCTAssertEqual(try item.json()["type"] as? String, "folder")
        XCTAssertEqual(try Curl.run(fixture.sim.baseURL + "/2.0/shared_items", headers: header).status, 401,
                       "Box wants an access token, any user's")

        XCTAssertEqual(try fixture.get("/2.0/folders/\(share.folderID)").status, 404, "not without the header")
        XCTAssertEqual(try fixture.get("/2.0/folders/\(share.folderID)", headers: header).status, 200)
        let listing = try fixture.get("/2.0/folders/\(share.folderID)/items", headers: header)
        let names = ((try listing.json()["entries"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String }
        XCTAssertEqual(names, ["sub", "a.txt"])
        let subID = try XCTUnwrap(share.folderIDs["sub"])
        XCTAssertEqual(try fixture.get("/2.0/folders/\(subID)/items", headers: header).status, 200)
        let fileID = try XCTUnwrap(share.fileIDs["sub/b.txt"])
        let file = try fixture.get("/2.0/files/\(fileID)?fields=permissions,name", headers: header)
        XCTAssertEqual(file.status, 200, file.text)
        let permissions = try XCTUnwrap(try file.json()["permissions"] as? [String: Bool])
        XCTAssertEqual(permissions["can_download"], true)
        XCTAssertEqual(permissions["can_delete"], false, "a shared-link viewer may not change anything")
        let redirect = try fixture.get("/2.0/files/\(fileID)/content", headers: header)
        XCTAssertEqual(redirect.status, 302, redirect.text)
        XCTAssertEqual(try Curl.run(try XCTUnwrap(redirect.headers["location"])).body, files["sub/b.txt"])

        let rename = try fixture.postJSON("/2.0/files/\(fileID)", ["name": "x.txt"], token: token, method: "PUT")
        XCTAssertEqual(rename.status, 404, "writes are not reached through a shared link")
        let outside = try OtherUserShare.createFolder(fixture.sim, token: share.token, name: "Private", parent: "0")
        XCTAssertEqual(try fixture.get("/2.0/folders/\(outside)", headers: header).status, 404,
                       "only items at or under the shared item")

        let log = try fixture.sim.requestLog()
        let viaLink = log.filter { $0.boxAPI == true }
        XCTAssertTrue(viaLink.contains { $0.path == "/2.0/files/\(fileID)/content" && $0.status == 302 })
        XCTAssertTrue(viaLink.allSatisfy { $0.path.hasPrefix("/2.0/") }, "downloads from /dl/ need no header")
        XCTAssertTrue(log.contains { $0.path == "/2.0/folders/\(share.folderID)" && $0.boxAPI == false })
        let raw = try String(contentsOf: fixture.sim.dataDirectory.appendingPathComponent("requests.jsonl"),
                             encoding: .utf8)
        XCTAssertFalse(raw.contains(share.url), "the header's value is not logged")
    }

    func testPasswordProtectedLinksNeedTheRightPassword() throws {
        let share = try OtherUserShare.make(fixture.sim, files: ["a.txt": Data("alpha\n".utf8)],
                                            link: ["access": "open", "password": "Right-pass1"])
        let fileID = try XCTUnwrap(share.fileIDs["a.txt"])
        for password in [nil, "wrong-pass1"] {
            for path in ["/2.0/shared_items", "/2.0/files/\(fileID)"] {
                let refused = try fixture.get(path, headers: boxAPI(share.url, password: password))
                XCTAssertEqual(refused.status, 403, "\(path) \(password ?? "no password"): \(refused.text)")
                XCTAssertEqual(try refused.json()["code"] as? String, "incorrect_shared_item_password")
            }
        }
        XCTAssertEqual(try fixture.get("/2.0/shared_items", headers: boxAPI(share.url, password: "Right-pass1")).status,
                       200)
        XCTAssertEqual(try fixture.get("/2.0/files/\(fileID)/content",
                                       headers: boxAPI(share.url, password: "Right-pass1")).status, 302)
        XCTAssertEqual(try fixture.get("/2.0/shared_items", headers: boxAPI(fixture.sim.baseURL + "/s/nosuchlink")).status,
                       404)
    }

    func testVanityLinksAndTokenExchangeWithBoxSharedLink() throws {
        let share = try OtherUserShare.make(fixture.sim, files: ["a.txt": Data("alpha\n".utf8)],
                                            link: ["access": "open", "vanity_name": "team-docs"])
        let vanity = try fixture.get("/2.0/shared_items", headers: boxAPI("https://app.box.com/v/team-docs"))
        XCTAssertEqual(vanity.status, 200, vanity.text)
        XCTAssertEqual(try vanity.json()["id"] as? String, share.folderID)

        let exchanged = try fixture.postForm("/oauth2/token", [
            "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange", "subject_token": token,
            "subject_token_type": "urn:ietf:params:oauth:token-type:access_token", "scope": "item_preview item_download",
            "box_shared_link": share.url,
        ])
        XCTAssertEqual(exchanged.status, 200, exchanged.text)
        let answer = try exchanged.json()
        let restricted = try XCTUnwrap((answer["restricted_to"] as? [[String: Any]])?.first?["object"] as? [String: Any])
        XCTAssertEqual(restricted["id"] as? String, share.folderID)
        let limited = try XCTUnwrap(answer["access_token"] as? String)
        let fileID = try XCTUnwrap(share.fileIDs["a.txt"])
        XCTAssertEqual(try Curl.run(fixture.sim.baseURL + "/2.0/files/\(fileID)", token: limited).status, 200,
                       "the exchanged token reaches the shared item without a header")
        XCTAssertEqual(try Curl.run(fixture.sim.baseURL + "/2.0/folders/0", token: limited).status, 403)

        let other = try OtherUserShare.make(fixture.sim, name: "Third", files: [:],
                                            link: ["access": "open", "password": "Secret123"])
        let refused = try fixture.postForm("/oauth2/token", [
            "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange", "subject_token": token,
            "subject_token_type": "urn:ietf:params:oauth:token-type:access_token", "scope": "item_preview",
            "box_shared_link": other.url,
        ])
        XCTAssertEqual(refused.status, 400, "Box does not exchange password-protected links")
    }
}
