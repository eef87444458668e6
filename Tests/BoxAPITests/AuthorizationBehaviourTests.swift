import BoxAuth
import CurlHTTP
import XCTest

@testable import BoxAPI

/// How the client reacts to Box's 401 and 403 answers.
final class AuthorizationBehaviourTests: XCTestCase {
    func testRejectedTokenIsReplacedOnceAndTheRequestRetried() async throws {
        let http = ScriptedHTTP { request, _ in
            request.headers["Authorization"] == "Bearer new"
                ? ScriptedHTTP.response(200, json: fileJSON)
                : ScriptedHTTP.response(401, headers: [invalidTokenChallenge])
        }
        let tokens = RefreshingTokens(first: "old", next: "new")
        let file = try await BoxClient.scripted(http, tokens: tokens).file(id: "42")
        XCTAssertEqual(file.name, "a.txt")
        XCTAssertEqual(http.requests.map { $0.headers["Authorization"] }, ["Bearer old", "Bearer new"])
        XCTAssertEqual(tokens.rejections, ["old"])
    }

    func testStaticTokenRejectionFailsAsUnauthorizedWithoutLeakingTheToken() async throws {
        let http = ScriptedHTTP { _, _ in ScriptedHTTP.response(401, headers: [invalidTokenChallenge]) }
        do {
            _ = try await BoxClient.scripted(http).currentUser()
            XCTFail("expected an error")
        } catch let error as BoxAPIError {
            XCTAssertEqual(error.kind, .unauthorized)
            XCTAssertEqual(error.status, 401)
            XCTAssertEqual(error.authError, "invalid_token")
            XCTAssertEqual(error.message, "The access token provided is invalid.")
            XCTAssertFalse(error.description.contains("T0KEN"), error.description)
            XCTAssertTrue(error.description.contains("GET /2.0/users/me"), error.description)
        }
        XCTAssertEqual(http.requests.count, 1)
    }

    func testASecondRejectionIsFinal() async throws {
        let http = ScriptedHTTP { _, _ in ScriptedHTTP.response(401, headers: [invalidTokenChallenge]) }
        let tokens = RefreshingTokens(first: "old", next: "new")
        do {
            _ = try await BoxClient.scripted(http, tokens: tokens).folder(id: "0")
            XCTFail("expected an error")
        } catch let error as BoxAPIError {
            XCTAssertEqual(error.kind, .unauthorized)
        }
        XCTAssertEqual(http.requests.count, 2, "one retry with the new token, never a loop")
        XCTAssertEqual(tokens.rejections, ["old"])
    }

    func testInsufficientScopeIsForbiddenAndDoesNotRefresh() async throws {
        let http = ScriptedHTTP { _, _ in
            ScriptedHTTP.response(
                403,
                json: #"{"type":"error","status":403,"code":"insufficient_scope","message":"The request requires higher privileges than provided by the access token.","request_id":"r1"}"#,
                headers: [("WWW-Authenticate", #"Bearer realm="Service", error="insufficient_scope""#)])
        }
        let tokens = RefreshingTokens(first: "old", next: "new")
        do {
            _ = try await BoxClient.scripted(http, tokens: tokens).file(id: "1")
            XCTFail("expected an error")
        } catch let error as BoxAPIError {
            XCTAssertEqual(error.kind, .forbidden)
            XCTAssertTrue(error.isInsufficientScope)
            XCTAssertEqual(error.requestID, "r1")
        }
        XCTAssertEqual(http.requests.count, 1)
        XCTAssertEqual(tokens.rejections, [])
    }

    func testAsUserIsACopyWithTheHeader() async throws {
        let http = ScriptedHTTP { _, _ in ScriptedHTTP.response(200, json: fileJSON) }
        let client = BoxClient.scripted(http)
        let other = client.asUser("777")
        _ = try await other.file(id: "42")
        _ = try await client.file(id: "42")
        XCTAssertEqual(http.requests.map { $0.headers["As-User"] }, ["777", nil])
        XCTAssertNil(client.header("As-User"))
        XCTAssertEqual(other.asUser("888").header("As-User"), "888", "replaces, never duplicates")
    }

    func testBearerChallengeParsing() throws {
        let challenge = try XCTUnwrap(BearerChallenge(headerValue: invalidTokenChallenge.1))
        XCTAssertEqual(challenge.realm, "Service")
        XCTAssertEqual(challenge.error, "invalid_token")
        XCTAssertTrue(challenge.rejectsToken)
        let two = try XCTUnwrap(
            BearerChallenge(headerValue: #"Basic realm="x", bearer error=insufficient_scope, scope="root_readwrite""#))
        XCTAssertTrue(two.isInsufficientScope)
        XCTAssertEqual(two["scope"], "root_readwrite")
        XCTAssertEqual(BearerChallenge(headerValue: "Bearer")?.parameters.count, 0)
        XCTAssertNil(BearerChallenge(headerValue: #"Basic realm="x""#))
    }

    func testStaticTokenProviderHidesItsToken() {
        let provider = StaticTokenProvider(token: "T0KEN-secret")
        var dumped = ""
        dump(provider, to: &dumped)
        for text in [provider.description, String(reflecting: provider), "\(provider)", dumped] {
            XCTAssertFalse(text.contains("T0KEN"), text)
        }
    }
}
