import CurlHTTP
import XCTest

@testable import BoxAPI

/// The client applies the retry policy to real request flows.
final class RetryBehaviourTests: XCTestCase {
    private let rateLimited = ScriptedHTTP.response(
        429,
        json: #"{"type":"error","status":429,"code":"rate_limit_exceeded","message":"Request rate limit exceeded, please try again later","request_id":"rl"}"#,
        headers: [("Retry-After", "0")])

    func testRateLimitIsRetriedHonouringRetryAfter() async throws {
        let limited = rateLimited
        let http = ScriptedHTTP { _, index in index < 2 ? limited : ScriptedHTTP.response(200, json: fileJSON) }
        let file = try await BoxClient.scripted(http).file(id: "42")
        XCTAssertEqual(file.id, "42")
        XCTAssertEqual(http.requests.count, 3)
    }

    func testRetryAfterIsActuallyWaited() async throws {
        let http = ScriptedHTTP { _, index in
            index == 0
                ? ScriptedHTTP.response(503, headers: [("Retry-After", "1")])
                : ScriptedHTTP.response(200, json: fileJSON)
        }
        let start = ContinuousClock.now
        _ = try await BoxClient.scripted(http).file(id: "42")
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - start, .milliseconds(990))
    }

    func testServerErrorsGiveUpAfterMaxAttempts() async throws {
        let http = ScriptedHTTP { _, _ in
            ScriptedHTTP.response(
                502, json: #"{"type":"error","status":502,"code":"bad_gateway","message":"Bad Gateway"}"#,
                headers: [("box-request-id", "hdr-id")])
        }
        do {
            _ = try await BoxClient.scripted(http).folderItems(id: "0")
            XCTFail("expected an error")
        } catch let error as BoxAPIError {
            XCTAssertEqual(error.kind, .server)
            XCTAssertEqual(error.code, "bad_gateway")
            XCTAssertEqual(error.requestID, "hdr-id")
            XCTAssertTrue(error.isTransient)
        }
        XCTAssertEqual(http.requests.count, 4, "maxAttempts of the scripted client")
    }

    func testRateLimitBeyondTheBudgetIsReturnedWithRetryAfter() async throws {
        let http = ScriptedHTTP { _, _ in ScriptedHTTP.response(429, headers: [("Retry-After", "60")]) }
        do {
            _ = try await BoxClient.scripted(http).file(id: "1")
            XCTFail("expected an error")
        } catch let error as BoxAPIError {
            XCTAssertEqual(error.kind, .rateLimited)
            XCTAssertEqual(error.retryAfter, 60)
        }
        XCTAssertEqual(http.requests.count, 1)
    }

    func testNonIdempotentRequestIsNotRetried() async throws {
        let http = ScriptedHTTP { _, _ in ScriptedHTTP.response(503, headers: [("Retry-After", "0")]) }
        let client = BoxClient.scripted(http)
        var post = BoxRequest(method: .post, url: client.apiURL("folders"))
        post.body = .data(Data(#"{"name":"x","parent":{"id":"0"}}"#.utf8))
        do {
            _ = try await client.execute(post)
            XCTFail("expected an error")
        } catch let error as BoxAPIError {
            XCTAssertEqual(error.kind, .server)
        }
        XCTAssertEqual(http.requests.count, 1)
    }

    func testTransientTransportErrorsAreRetriedOthersAreNot() async throws {
        let refused = HTTPError(kind: .transport, message: "Couldn't connect to server", curlCode: 7)
        let flaky = ScriptedHTTP { _, index in
            if index == 0 { throw refused }
            return ScriptedHTTP.response(200, json: fileJSON)
        }
        _ = try await BoxClient.scripted(flaky).file(id: "42")
        XCTAssertEqual(flaky.requests.count, 2)

        let broken = ScriptedHTTP { _, _ in throw HTTPError(kind: .invalidRequest, message: "bad URL") }
        do {
            _ = try await BoxClient.scripted(broken).file(id: "42")
            XCTFail("expected an error")
        } catch let error as BoxAPIError {
            guard case .transport(_, let isTransient) = error.kind else { return XCTFail("\(error)") }
            XCTAssertFalse(isTransient)
        }
        XCTAssertEqual(broken.requests.count, 1)
    }

    func testUnexpectedBodyIsADecodingError() async throws {
        let http = ScriptedHTTP { _, _ in ScriptedHTTP.response(200, json: "<html>maintenance</html>") }
        do {
            _ = try await BoxClient.scripted(http).currentUser()
            XCTFail("expected an error")
        } catch let error as BoxAPIError {
            guard case .decoding = error.kind else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(http.requests.count, 1)
    }
}
