import CurlHTTP
import XCTest

@testable import BoxAPI

/// The two-step download: the authorized API call, then the pre-signed location without credentials.
final class DownloadBehaviourTests: XCTestCase {
    private let content = Data((0..<200).map { UInt8($0) })

    private func redirectingServer(location: String = "https://dl.test/d/opaque-123/download") -> ScriptedHTTP {
        let content = content
        return ScriptedHTTP { request, _ in
            if request.url.hasPrefix("https://api.test/2.0/") {
                return ScriptedHTTP.response(302, headers: [("Location", location)])
            }
            guard let range = request.headers["Range"] else { return ScriptedHTTP.response(200, json: "") }
            let bounds = range.dropFirst("bytes=".count).split(separator: "-").compactMap { Int($0) }
            var response = ScriptedHTTP.response(206, url: request.url)
            response.body = content.subdata(in: bounds[0]..<min(bounds[1] + 1, content.count))
            return response
        }
    }

    func testRedirectIsFetchedWithoutCredentialsAndWithTheSameRange() async throws {
        let http = redirectingServer()
        let client = BoxClient.scripted(http).asUser("5").withHeader("BoxApi", "shared_link=https://x/s/abc")
        let bytes = try await client.download(fileID: "42", range: 10..<20)
        XCTAssertEqual(bytes, content.subdata(in: 10..<20))

        let (api, location) = (http.requests[0], http.requests[1])
        XCTAssertEqual(api.url, "https://api.test/2.0/files/42/content")
        XCTAssertEqual(api.headers["Authorization"], "Bearer T0KEN-secret")
        XCTAssertEqual(api.headers["As-User"], "5")
        XCTAssertEqual(api.headers["Range"], "bytes=10-19")
        XCTAssertFalse(api.followRedirects, "the API call must not follow the redirect with Authorization")
        XCTAssertEqual(location.url, "https://dl.test/d/opaque-123/download")
        XCTAssertNil(location.headers["Authorization"])
        XCTAssertNil(location.headers["As-User"])
        XCTAssertNil(location.headers["BoxApi"])
        XCTAssertEqual(location.headers["Range"], "bytes=10-19")
        XCTAssertEqual(http.requests.count, 2)
    }

    func testRelativeLocationIsResolved() async throws {
        let http = redirectingServer(location: "/dl/tok")
        _ = try await BoxClient.scripted(http).download(fileID: "42", range: 0..<5)
        XCTAssertEqual(http.requests[1].url, "https://api.test/dl/tok")
    }

    func testNotReadyYetIsWaitedFor() async throws {
        let content = content
        let http = ScriptedHTTP { request, index in
            if index == 0 { return ScriptedHTTP.response(202, headers: [("Retry-After", "0")]) }
            if index == 1 { return ScriptedHTTP.response(302, headers: [("Location", "https://dl.test/x")]) }
            var response = ScriptedHTTP.response(200)
            response.body = content
            return response
        }
        let bytes = try await BoxClient.scripted(http).download(fileID: "42", range: nil)
        XCTAssertEqual(bytes, content)
        XCTAssertEqual(http.requests.count, 3)
    }

    func testWholeBodyForARangeIsCutToTheRange() async throws {
        let content = content
        let http = ScriptedHTTP { request, _ in
            if request.url.hasPrefix("https://api.test/") {
                return ScriptedHTTP.response(302, headers: [("Location", "https://dl.test/x")])
            }
            var response = ScriptedHTTP.response(200)
            response.body = content
            return response
        }
        let client = BoxClient.scripted(http)
        let tail = try await client.download(fileID: "42", range: 190..<300)
        XCTAssertEqual(tail, content.subdata(in: 190..<200))
        let beyond = try await client.download(fileID: "42", range: 500..<600)
        XCTAssertEqual(beyond, Data())
    }

    func testEmptyRangeAndUnsatisfiableRange() async throws {
        let http = ScriptedHTTP { _, _ in ScriptedHTTP.response(416) }
        let client = BoxClient.scripted(http)
        let empty = try await client.download(fileID: "1", range: 7..<7)
        XCTAssertEqual(empty, Data())
        XCTAssertEqual(http.requests.count, 0)
        let pastTheEnd = try await client.download(fileID: "1", range: 1000..<2000)
        XCTAssertEqual(pastTheEnd, Data())
    }

    func testExpiredLocationIsRenewedOnce() async throws {
        let content = content
        let http = ScriptedHTTP { request, index in
            if request.url.hasPrefix("https://api.test/2.0/") {
                return ScriptedHTTP.response(302, headers: [("Location", "https://dl.test/link\(index)")])
            }
            if request.url.hasSuffix("link0") { return ScriptedHTTP.response(403) }
            var response = ScriptedHTTP.response(206)
            response.body = content.prefix(4)
            return response
        }
        let bytes = try await BoxClient.scripted(http).download(fileID: "42", range: 0..<4)
        XCTAssertEqual(bytes, content.prefix(4))
        XCTAssertEqual(http.requests.map(\.url).suffix(2), ["https://api.test/2.0/files/42/content", "https://dl.test/link2"])

        let alwaysExpired = ScriptedHTTP { request, index in
            request.url.hasPrefix("https://api.test/2.0/")
                ? ScriptedHTTP.response(302, headers: [("Location", "https://dl.test/link\(index)")])
                : ScriptedHTTP.response(410)
        }
        do {
            _ = try await BoxClient.scripted(alwaysExpired).download(fileID: "42", range: nil)
            XCTFail("expected an error")
        } catch let error as BoxAPIError {
            XCTAssertEqual(error.kind, .notFound)
        }
        XCTAssertEqual(alwaysExpired.requests.count, 4, "renewed once, not in a loop")
    }

    func testMissingFile() async throws {
        let http = ScriptedHTTP { _, _ in
            ScriptedHTTP.response(404, json: #"{"type":"error","status":404,"code":"not_found","message":"Not Found"}"#)
        }
        do {
            _ = try await BoxClient.scripted(http).download(fileID: "9", range: nil)
            XCTFail("expected an error")
        } catch let error as BoxAPIError {
            XCTAssertEqual(error.kind, .notFound)
            XCTAssertEqual(error.code, "not_found")
        }
    }

    func testTransportErrorOnTheLocationDoesNotRevealIt() async throws {
        let http = ScriptedHTTP { request, _ in
            if request.url.hasPrefix("https://api.test/") {
                return ScriptedHTTP.response(302, headers: [("Location", "https://dl.test/d/SECRET-LINK/x")])
            }
            throw HTTPError(kind: .invalidRequest, message: "https://dl.test/d/SECRET-LINK/x is bad")
        }
        do {
            _ = try await BoxClient.scripted(http).download(fileID: "1", range: nil)
            XCTFail("expected an error")
        } catch let error as BoxAPIError {
            XCTAssertFalse(error.description.contains("SECRET-LINK"), error.description)
        }
    }
}
