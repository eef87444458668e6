import BoxTestSupport
import Foundation
import XCTest

/// `/oauth2/token` grants, refresh rotation, revoke, the authorize page, downscoping and As-User.
final class OAuthTests: XCTestCase {
    func testClientCredentialsGrantForServiceAccountAndUser() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let app = try fixture.createApp()
        let base = ["grant_type": "client_credentials", "client_id": app["client_id"]!,
                    "client_secret": app["client_secret"]!]
        let service = try fixture.postForm("/oauth2/token", base.merging(
            ["box_subject_type": "enterprise", "box_subject_id": app["enterprise_id"]!]) { $1 })
        XCTAssertEqual(service.status, 200, service.text)
        let serviceToken = try XCTUnwrap(try service.json()["access_token"] as? String)
        XCTAssertNil(try service.json()["refresh_token"])
        XCTAssertEqual(try service.json()["expires_in"] as? Int, 3600)
        let me = try Curl.run(fixture.sim.baseURL + "/2.0/users/me", token: serviceToken).json()
        XCTAssertEqual(me["id"] as? String, app["service_account_id"])

        let userID = try fixture.createUser()
        let user = try fixture.postForm("/oauth2/token", base.merging(
            ["box_subject_type": "user", "box_subject_id": userID]) { $1 })
        let userToken = try XCTUnwrap(try user.json()["access_token"] as? String)
        XCTAssertEqual(try Curl.run(fixture.sim.baseURL + "/2.0/users/me", token: userToken).json()["id"] as? String,
                       userID)

        let badSecret = try fixture.postForm("/oauth2/token", base.merging(
            ["client_secret": "wrong", "box_subject_type": "enterprise", "box_subject_id": app["enterprise_id"]!]) { $1 })
        XCTAssertEqual(badSecret.status, 400)
        XCTAssertEqual(try badSecret.json()["error"] as? String, "invalid_client")
        let badSubject = try fixture.postForm("/oauth2/token", base.merging(
            ["box_subject_type": "enterprise", "box_subject_id": "42"]) { $1 })
        XCTAssertEqual(try badSubject.json()["error"] as? String, "invalid_grant")
        XCTAssertEqual(try fixture.postForm("/oauth2/token", ["grant_type": "password"]).status, 400)
    }

    func testAuthorizationCodeFlowAndSingleUseRefreshTokens() async throws {
        let fixture = try await SimFixture.start(extraArgs: ["--auto-approve"])
        defer { fixture.stop() }
        let app = try fixture.createApp(redirectURI: "http://127.0.0.1:9/callback")
        let authorize = try Curl.run(fixture.sim.baseURL + "/api/oauth2/authorize?response_type=code&client_id="
                                     + app["client_id"]! + "&state=xyz%20state")
        XCTAssertEqual(authorize.status, 302)
        let location = try XCTUnwrap(URLComponents(string: authorize.headers["location"] ?? ""))
        XCTAssertEqual(location.path, "/callback")
        let items = Dictionary(uniqueKeysWithValues: (location.queryItems ?? []).map { ($0.name, $0.value ?? "") })
        XCTAssertEqual(items["state"], "xyz state")
        let code = try XCTUnwrap(items["code"])

        let client = ["client_id": app["client_id"]!, "client_secret": app["client_secret"]!]
        let first = try fixture.postForm("/oauth2/token", client.merging(["grant_type": "authorization_code",
                                                                          "code": code]) { $1 }).json()
        let access = try XCTUnwrap(first["access_token"] as? String)
        let refresh = try XCTUnwrap(first["refresh_token"] as? String)
        XCTAssertEqual(first["token_type"] as? String, "bearer")
        XCTAssertEqual(try Curl.run(fixture.sim.baseURL + "/2.0/users/me", token: access).status, 200)
        let reused = try fixture.postForm("/oauth2/token", client.merging(["grant_type": "authorization_code",
                                                                           "code": code]) { $1 })
        XCTAssertEqual(try reused.json()["error"] as? String, "invalid_grant", "codes are single use")

        // Client credentials in HTTP Basic auth, as some clients send them.
        let basic = Data("\(app["client_id"]!):\(app["client_secret"]!)".utf8).base64EncodedString()
        let second = try fixture.postForm("/oauth2/token", ["grant_type": "refresh_token", "refresh_token": refresh],
                                          headers: ["Authorization": "Basic \(basic)"])
        XCTAssertEqual(second.status, 200, second.text)
        let rotated = try XCTUnwrap(try second.json()["refresh_token"] as? String)
        XCTAssertNotEqual(rotated, refresh)
        let replay = try fixture.postForm("/oauth2/token", client.merging(["grant_type": "refresh_token",
                                                                           "refresh_token": refresh]) { $1 })
        XCTAssertEqual(replay.status, 400)
        XCTAssertEqual(try replay.json()["error"] as? String, "invalid_grant")
    }

    /// app.box.com's token path (`/api/oauth2/token`, rclone's default for code exchange and refresh) is the
    /// same endpoint as api.box.com's `/oauth2/token`: grants, single-use refresh tokens, errors.
    func testTheAppHostTokenPathIsTheSameEndpoint() async throws {
        let fixture = try await SimFixture.start(extraArgs: ["--auto-approve"])
        defer { fixture.stop() }
        let app = try fixture.createApp(redirectURI: "http://127.0.0.1:9/callback")
        let authorize = try Curl.run(fixture.sim.baseURL + "/api/oauth2/authorize?response_type=code&client_id="
                                     + app["client_id"]! + "&state=s")
        let location = try XCTUnwrap(URLComponents(string: authorize.headers["location"] ?? ""))
        let code = try XCTUnwrap(location.queryItems?.first { $0.name == "code" }?.value)
        let client = ["client_id": app["client_id"]!, "client_secret": app["client_secret"]!]
        let granted = try fixture.postForm("/api/oauth2/token", client.merging(["grant_type": "authorization_code",
                                                                                "code": code]) { $1 })
        XCTAssertEqual(granted.status, 200, granted.text)
        let refresh = try XCTUnwrap(try granted.json()["refresh_token"] as? String)
        XCTAssertEqual(try Curl.run(fixture.sim.baseURL + "/2.0/users/me",
                                    token: try XCTUnwrap(try granted.json()["access_token"] as? String)).status, 200)
        let refreshed = try fixture.postForm("/api/oauth2/token", client.merging(["grant_type": "refresh_token",
                                                                                  "refresh_token": refresh]) { $1 })
        XCTAssertEqual(refreshed.status, 200, refreshed.text)
        XCTAssertNotNil(try refreshed.json()["access_token"] as? String)
        // The refresh token was used up on one path: the other path refuses it too.
        let replay = try fixture.postForm("/oauth2/token", client.merging(["grant_type": "refresh_token",
                                                                           "refresh_token": refresh]) { $1 })
        XCTAssertEqual(replay.status, 400)
        XCTAssertEqual(try replay.json()["error"] as? String, "invalid_grant")
        let badClient = try fixture.postForm("/api/oauth2/token", ["grant_type": "client_credentials",
                                                                   "client_id": "nope", "client_secret": "x"])
        XCTAssertEqual(badClient.status, 400)
        XCTAssertEqual(try badClient.json()["error"] as? String, "invalid_client")
        XCTAssertEqual(try fixture.sim.requestLog().filter { $0.path == "/api/oauth2/token" }.map(\.status), [200, 200, 400])
    }

    func testAuthorizePageShowsConsentFormWithoutAutoApprove() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let app = try fixture.createApp(redirectURI: "http://127.0.0.1:9/cb")
        let url = "/api/oauth2/authorize?response_type=code&client_id=\(app["client_id"]!)"
        let page = try Curl.run(fixture.sim.baseURL + url)
        XCTAssertEqual(page.status, 200)
        XCTAssertTrue(page.text.contains("<form"))
        let mismatch = try Curl.run(fixture.sim.baseURL + url + "&redirect_uri=http://evil.example/cb")
        XCTAssertEqual(mismatch.status, 400)
        XCTAssertTrue(mismatch.text.contains("redirect_uri_mismatch"))
        let approved = try fixture.postForm("/api/oauth2/authorize", ["response_type": "code", "client_id":
                                            app["client_id"]!, "state": "s1", "decision": "allow"])
        XCTAssertEqual(approved.status, 302)
        XCTAssertTrue(approved.headers["location"]?.contains("code=") ?? false)
    }

    func testAccessTokenLifetimeExpiryAndRevoke() async throws {
        let fixture = try await SimFixture.start(extraArgs: ["--token-lifetime", "120"])
        defer { fixture.stop() }
        let app = try fixture.createApp()
        let form = ["grant_type": "client_credentials", "client_id": app["client_id"]!,
                    "client_secret": app["client_secret"]!, "box_subject_type": "enterprise",
                    "box_subject_id": app["enterprise_id"]!]
        let issued = try fixture.postForm("/oauth2/token", form).json()
        XCTAssertEqual(issued["expires_in"] as? Int, 120)
        let token = try XCTUnwrap(issued["access_token"] as? String)
        XCTAssertEqual(try fixture.postJSON("/_control/tokens/expire", ["token": token]).status, 204)
        XCTAssertEqual(try Curl.run(fixture.sim.baseURL + "/2.0/users/me", token: token).status, 401)

        let second = try XCTUnwrap(try fixture.postForm("/oauth2/token", form).json()["access_token"] as? String)
        XCTAssertEqual(try Curl.run(fixture.sim.baseURL + "/2.0/users/me", token: second).status, 200)
        let revoke = try fixture.postForm("/oauth2/revoke", ["client_id": app["client_id"]!,
                                                             "client_secret": app["client_secret"]!, "token": second])
        XCTAssertEqual(revoke.status, 200)
        XCTAssertEqual(try Curl.run(fixture.sim.baseURL + "/2.0/users/me", token: second).status, 401)
    }

    func testDownscopedTokenIsLimitedToItsItemAndScopes() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let fileID = try fixture.id(of: "docs/a.txt")
        let otherID = try fixture.id(of: "hello.txt")
        let result = try fixture.postForm("/oauth2/token", [
            "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
            "subject_token": fixture.sim.developerToken,
            "subject_token_type": "urn:ietf:params:oauth:token-type:access_token",
            "scope": "item_preview", "resource": fixture.sim.baseURL + "/2.0/files/\(fileID)",
        ])
        XCTAssertEqual(result.status, 200, result.text)
        let body = try result.json()
        XCTAssertEqual(body["issued_token_type"] as? String, "urn:ietf:params:oauth:token-type:access_token")
        XCTAssertNil(body["refresh_token"])
        let restricted = try XCTUnwrap(body["restricted_to"] as? [[String: Any]])
        XCTAssertEqual(restricted.first?["scope"] as? String, "item_preview")
        XCTAssertEqual((restricted.first?["object"] as? [String: Any])?["id"] as? String, fileID)
        let token = try XCTUnwrap(body["access_token"] as? String)
        XCTAssertEqual(try Curl.run(fixture.sim.baseURL + "/2.0/files/\(fileID)", token: token).status, 200)
        let download = try Curl.run(fixture.sim.baseURL + "/2.0/files/\(fileID)/content", token: token)
        XCTAssertEqual(download.status, 403, "item_preview does not allow downloads")
        XCTAssertTrue(download.headers["www-authenticate"]?.contains("insufficient_scope") ?? false)
        XCTAssertEqual(try Curl.run(fixture.sim.baseURL + "/2.0/files/\(otherID)", token: token).status, 403)
    }

    func testAsUserHonouredOnlyForAdmins() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let userID = try fixture.createUser()
        let asUser = try fixture.get("/2.0/users/me", headers: ["As-User": userID])
        XCTAssertEqual(try asUser.json()["id"] as? String, userID)
        XCTAssertEqual(try fixture.sim.requestLog().last?.asUser, userID)

        let minted = try fixture.postJSON("/_control/tokens", ["user_id": userID]).json()
        let userToken = try XCTUnwrap(minted["access_token"] as? String)
        let adminID = try XCTUnwrap(try fixture.getJSON("/2.0/users/me")["id"] as? String)
        let denied = try Curl.run(fixture.sim.baseURL + "/2.0/users/me", token: userToken, headers: ["As-User": adminID])
        XCTAssertEqual(denied.status, 403)
        XCTAssertTrue(denied.body.isEmpty)
        XCTAssertTrue(denied.headers["www-authenticate"]?.contains("insufficient_scope") ?? false)
    }
}
