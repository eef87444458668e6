import Foundation
import Testing
import CurlHTTP

@Suite struct HTTPClientBasicTests {
    @Test func getReturnsBodyAndHeaders() async throws {
        try await withTestServer { server in
            let client = HTTPClient()
            let response = try await client.send(HTTPRequest(url: server.url("/hello")))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "hello, world")
            #expect(response.headers["x-greeting"] == "hi")
            #expect(response.headers.values(for: "X-MULTI") == ["one", "two"])
            #expect(response.headers["Content-Length"] == "12")
            #expect(response.bodyBytesWritten == 0)
            #expect(response.effectiveURL == server.url("/hello"))
        }
    }

    @Test func headReturnsHeadersWithoutBody() async throws {
        try await withTestServer { server in
            let response = try await HTTPClient().send(HTTPRequest(method: .head, url: server.url("/hello")))
            #expect(response.status == 200)
            #expect(response.headers["X-Greeting"] == "hi")
            #expect(response.headers["Content-Length"] == "12")
            #expect(response.body.isEmpty)
        }
    }

    @Test func requestHeadersArriveAsGiven() async throws {
        try await withTestServer { server in
            let headers: HTTPHeaders = ["X-Custom": "some value", "Authorization": "Bearer abc", "X-Empty": ""]
            let response = try await HTTPClient().send(HTTPRequest(url: server.url("/echo-headers"), headers: headers))
            // The server reports names in lower case (HTTP/1 names are case-insensitive).
            let lines = String(decoding: response.body, as: UTF8.self).split(separator: "\n").map(String.init)
            #expect(lines.contains("x-custom: some value"))
            #expect(lines.contains("authorization: Bearer abc"))
            #expect(lines.contains("x-empty: "))
            #expect(!lines.contains { $0.hasPrefix("expect:") })
        }
    }

    @Test func aCompressedAnswerIsAskedForOnlyWhenTheRequestTakesOneAndArrivesDecoded() async throws {
        try await withTestServer { server in
            let expected = String(repeating: "boxfs gzip answer\n", count: 3641)
            let compressed = try await HTTPClient().send(HTTPRequest(url: server.url("/gzip"), acceptsCompressedBody: true))
            #expect(compressed.headers["Content-Encoding"] == "gzip")
            #expect(Int(compressed.headers["Content-Length"] ?? "") ?? .max < expected.utf8.count / 10)
            #expect(String(decoding: compressed.body, as: UTF8.self) == expected)

            let plain = try await HTTPClient().send(HTTPRequest(url: server.url("/gzip")))
            #expect(plain.headers["Content-Encoding"] == nil)
            #expect(String(decoding: plain.body, as: UTF8.self) == expected)
            let seen = try await HTTPClient().send(HTTPRequest(url: server.url("/echo-headers")))
            #expect(!String(decoding: seen.body, as: UTF8.self).contains("accept-encoding"))
        }
    }

    @Test func errorStatusIsAResponseNotAnError() async throws {
        try await withTestServer { server in
            let response = try await HTTPClient().send(HTTPRequest(url: server.url("/missing")))
            #expect(response.status == 404)
            #expect(!response.isSuccess)
            #expect(String(decoding: response.body, as: UTF8.self) == "nothing here")
        }
    }

    @Test func redirectIsNotFollowedByDefault() async throws {
        try await withTestServer { server in
            let response = try await HTTPClient().send(HTTPRequest(url: server.url("/redirect")))
            #expect(response.status == 302)
            #expect(response.headers["Location"] == "/hello")
            #expect(String(decoding: response.body, as: UTF8.self) == "moved")
            #expect(response.effectiveURL == server.url("/redirect"))
        }
    }

    @Test func redirectIsFollowedWhenAsked() async throws {
        try await withTestServer { server in
            let request = HTTPRequest(url: server.url("/redirect"), followRedirects: true)
            let response = try await HTTPClient().send(request)
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "hello, world")
            #expect(response.headers["Location"] == nil, "headers must be the final response's only")
            #expect(response.headers["X-Greeting"] == "hi")
            #expect(response.effectiveURL == server.url("/hello"))
        }
    }

    /// curl drops a caller's `Authorization` when a followed redirect leaves the original host and port,
    /// and keeps it when the redirect stays there (as boxsim's download redirect does: follow that by hand).
    @Test func followedRedirectSendsAuthorizationOnlyToTheSameHost() async throws {
        try await withTestServer { origin in
            try await withTestServer { other in
                let client = HTTPClient()
                func seenHeaders(redirectingTo location: String) async throws -> String {
                    let request = HTTPRequest(url: origin.url("/redirect-to?location=\(location)"),
                                              headers: ["Authorization": "Bearer abc"], followRedirects: true)
                    let response = try await client.send(request)
                    #expect(response.status == 200)
                    return String(decoding: response.body, as: UTF8.self).lowercased()
                }
                let crossHost = try await seenHeaders(redirectingTo: other.url("/echo-headers"))
                let sameHost = try await seenHeaders(redirectingTo: origin.url("/echo-headers"))
                #expect(!crossHost.contains("authorization"))
                #expect(sameHost.contains("authorization: bearer abc"))
            }
        }
    }

    @Test func sequentialRequestsReuseTheConnection() async throws {
        try await withTestServer { server in
            let client = HTTPClient()
            var ports: [String] = []
            for _ in 0..<3 {
                let response = try await client.send(HTTPRequest(url: server.url("/peer")))
                ports.append(String(decoding: response.body, as: UTF8.self))
            }
            #expect(Set(ports).count == 1, "client ports \(ports)")
        }
    }

    @Test func connectionRefusedIsTransient() async throws {
        let port = try TestFiles.closedPort()
        let client = HTTPClient()
        await #expect {
            _ = try await client.send(HTTPRequest(url: "http://127.0.0.1:\(port)/x", headers: ["Authorization": "tok"]))
        } throws: { error in
            guard let error = error as? HTTPError else { return false }
            return error.kind == .transport && error.isTransient && !error.isTimeout && error.curlCode == 7
                && !error.description.contains("tok")
        }
    }
}
