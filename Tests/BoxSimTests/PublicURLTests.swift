import BoxTestSupport
import Foundation
import XCTest

/// Absolute URLs (download redirect, upload-session endpoints, preflight `upload_url`, shared links, the
/// long-poll URL) carry the scheme and host the client used: from `Forwarded` / `X-Forwarded-Proto` /
/// `X-Forwarded-Host` when a TLS terminator sits in front, else `Host` over plain HTTP; `--public-url` names
/// a Box host's base outright.
final class PublicURLTests: XCTestCase {
    /// The absolute URLs one set of request headers gets back, by role.
    struct HandedOut {
        var download: String
        var uploadSession: String
        var preflight: String
        var sharedLink: String
        var sharedDownload: String
        var longPoll: String
    }

    func urls(_ fixture: SimFixture, headers: [String: String]) throws -> HandedOut {
        let token = fixture.sim.developerToken
        let helloID = try fixture.id(of: "hello.txt")
        let redirect = try fixture.get("/2.0/files/\(helloID)/content", headers: headers)
        XCTAssertEqual(redirect.status, 302, redirect.text)
        let session = try fixture.postJSON("/api/2.0/files/upload_sessions",
                                           ["folder_id": "0", "file_size": 20_000_001, "file_name": "s-\(UUID()).bin"],
                                           token: token, headers: headers).json()
        let endpoints = try XCTUnwrap(session["session_endpoints"] as? [String: String])
        let preflight = try fixture.postJSON("/2.0/files/content", ["name": "p.bin", "parent": ["id": "0"], "size": 1],
                                             token: token, method: "OPTIONS", headers: headers).json()
        let shared = try fixture.postJSON("/2.0/files/\(helloID)", ["shared_link": ["access": "open"]], token: token,
                                          method: "PUT", headers: headers).json()
        let link = try XCTUnwrap(shared["shared_link"] as? [String: Any])
        let poll = try Curl.run(fixture.sim.baseURL + "/2.0/events", token: token, headers: headers, method: "OPTIONS")
            .json()
        let server = try XCTUnwrap((poll["entries"] as? [[String: Any]])?.first)
        return HandedOut(download: redirect.headers["location"] ?? "", uploadSession: endpoints["upload_part"] ?? "",
                         preflight: preflight["upload_url"] as? String ?? "", sharedLink: link["url"] as? String ?? "",
                         sharedDownload: link["download_url"] as? String ?? "", longPoll: server["url"] as? String ?? "")
    }

    func assertBase(_ urls: HandedOut, _ base: String, file: StaticString = #filePath, line: UInt = #line) {
        for (name, url, path) in [("download", urls.download, "/dl/"),
                                  ("upload session", urls.uploadSession, "/api/2.0/files/upload_sessions/"),
                                  ("preflight", urls.preflight, "/api/2.0/files/content?upload_session_id="),
                                  ("shared link", urls.sharedLink, "/s/"),
                                  ("shared download", urls.sharedDownload, "/shared/static/"),
                                  ("long poll", urls.longPoll, "/subscribe?channel=")] {
            XCTAssertTrue(url.hasPrefix(base + path), "\(name): \(url) does not start with \(base + path)",
                          file: file, line: line)
        }
    }

    func testPlainHTTPGetsTheHostTheClientUsed() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        assertBase(try urls(fixture, headers: [:]), fixture.sim.baseURL)
        // A redirect that works end to end: curl follows it and gets the bytes.
        let followed = try Curl.run(fixture.sim.baseURL + "/2.0/files/\(try fixture.id(of: "hello.txt"))/content",
                                    token: fixture.sim.developerToken, extra: ["-L"])
        XCTAssertEqual(followed.text, "hello world\n")
    }

    func testBehindATLSTerminatorTheForwardedSchemeAndHostAreUsed() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        assertBase(try urls(fixture, headers: ["X-Forwarded-Proto": "https", "X-Forwarded-Host": "box.example"]),
                   "https://box.example")
        // Only the scheme forwarded: the Host header names the host.
        let port = try XCTUnwrap(URL(string: fixture.sim.baseURL)?.port)
        assertBase(try urls(fixture, headers: ["X-Forwarded-Proto": "https, http"]), "https://127.0.0.1:\(port)")
        // RFC 7239: the first element counts, quoted values are unquoted, and it wins over X-Forwarded-*.
        assertBase(try urls(fixture, headers: ["Forwarded": "for=192.0.2.60;Proto=https;host=\"api.box.example:8443\", for=10.0.0.1;proto=http",
                                               "X-Forwarded-Proto": "http", "X-Forwarded-Host": "other.example"]),
                   "https://api.box.example:8443")
        // Values that are not a scheme or a host are ignored.
        assertBase(try urls(fixture, headers: ["X-Forwarded-Proto": "javascript", "X-Forwarded-Host": "evil.example/x?"]),
                   fixture.sim.baseURL)
    }

    /// The issue's case: behind a TLS terminator, a redirected download and a chunked upload that follow the URLs
    /// boxsim handed out go through HTTPS end to end; the same boxsim still answers plain-HTTP clients with http.
    func testThroughATLSTerminatorDownloadsAndChunkedUploadsFollowHTTPSURLs() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let tls = try TLSTerminator(backend: fixture.sim.baseURL)
        defer { tls.stop() }
        let token = fixture.sim.developerToken
        let helloID = try fixture.id(of: "hello.txt")
        let redirect = try tls.curl("/2.0/files/\(helloID)/content", token: token)
        XCTAssertEqual(redirect.status, 302, redirect.text)
        XCTAssertTrue(redirect.headers["location"]?.hasPrefix(tls.baseURL + "/dl/") ?? false, redirect.headers["location"] ?? "")
        XCTAssertEqual(try tls.curl("/2.0/files/\(helloID)/content", token: token, extra: ["-L"]).text, "hello world\n")
        XCTAssertTrue(try fixture.get("/2.0/files/\(helloID)/content").headers["location"]?
            .hasPrefix(fixture.sim.baseURL + "/dl/") ?? false, "a direct client still gets http")

        let size = 20_000_001
        let local = try UploadFiles.random(size: size)
        defer { try? FileManager.default.removeItem(at: local) }
        let body = String(decoding: try JSONSerialization.data(withJSONObject: [
            "folder_id": "0", "file_size": size, "file_name": "through-tls.bin"]), as: UTF8.self)
        let created = try tls.curl("/api/2.0/files/upload_sessions", token: token,
                                   headers: ["Content-Type": "application/json"], extra: ["--data-binary", body])
        XCTAssertEqual(created.status, 201, created.text)
        let endpoints = try XCTUnwrap(try created.json()["session_endpoints"] as? [String: String])
        var parts: [Any] = []
        for offset in stride(from: 0, to: size, by: 8_388_608) {
            let length = min(8_388_608, size - offset)
            let slice = try UploadFiles.slice(of: local, offset: offset, length: length)
            defer { try? FileManager.default.removeItem(at: slice) }
            let partURL = try XCTUnwrap(endpoints["upload_part"])
            XCTAssertTrue(partURL.hasPrefix(tls.baseURL + "/api/2.0/files/upload_sessions/"), partURL)
            let part = try Curl.run(partURL, token: token, headers: [
                "Digest": "SHA=" + UploadDigest.base64SHA1(of: slice), "Expect": "",
                "Content-Range": "bytes \(offset)-\(offset + length - 1)/\(size)", "Content-Type": "application/octet-stream",
            ], method: "PUT", extra: ["--cacert", tls.certificate.path, "--data-binary", "@\(slice.path)"])
            XCTAssertEqual(part.status, 200, part.text)
            parts.append(try XCTUnwrap(try part.json()["part"]))
        }
        let commitBody = String(decoding: try JSONSerialization.data(withJSONObject: ["parts": parts]), as: UTF8.self)
        let committed = try Curl.run(try XCTUnwrap(endpoints["commit"]), token: token, headers: [
            "Digest": "sha=" + UploadDigest.base64SHA1(of: local), "Content-Type": "application/json",
        ], method: "POST", extra: ["--cacert", tls.certificate.path, "--data-binary", commitBody])
        XCTAssertEqual(committed.status, 201, committed.text)
        let fileID = try XCTUnwrap((try committed.json()["entries"] as? [[String: Any]])?.first?["id"] as? String)
        let downloaded = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: downloaded) }
        let download = try tls.curl("/2.0/files/\(fileID)/content", token: token, extra: ["-L"])
        XCTAssertEqual(download.status, 200)
        try download.body.write(to: downloaded)
        XCTAssertEqual(try Curl.sha1(of: downloaded), try Curl.sha1(of: local))
    }

    func testPublicURLOptionsNameEachBoxHost() async throws {
        let fixture = try await SimFixture.start(extraArgs: [
            "--public-url", "dl=https://dl.boxcloud.com", "--public-url", "upload=https://upload.box.com/",
            "--public-url", "APP=https://app.box.com",
        ])
        defer { fixture.stop() }
        let handedOut = try urls(fixture, headers: ["X-Forwarded-Proto": "https", "X-Forwarded-Host": "proxy.example"])
        XCTAssertTrue(handedOut.download.hasPrefix("https://dl.boxcloud.com/dl/"), handedOut.download)
        XCTAssertTrue(handedOut.uploadSession.hasPrefix("https://upload.box.com/api/2.0/files/upload_sessions/"),
                      handedOut.uploadSession)
        XCTAssertTrue(handedOut.preflight.hasPrefix("https://upload.box.com/api/2.0/files/content?"), handedOut.preflight)
        XCTAssertTrue(handedOut.sharedLink.hasPrefix("https://app.box.com/s/"), handedOut.sharedLink)
        XCTAssertTrue(handedOut.sharedDownload.hasPrefix("https://app.box.com/shared/static/"), handedOut.sharedDownload)
        // The api role was not named: the forwarded base.
        XCTAssertTrue(handedOut.longPoll.hasPrefix("https://proxy.example/subscribe?"), handedOut.longPoll)
        // The link handed out under the public host resolves on boxsim.
        let item = try fixture.get("/2.0/shared_items", headers: ["BoxApi": "shared_link=\(handedOut.sharedLink)"])
        XCTAssertEqual(item.status, 200, item.text)
    }

    func testOnePublicURLForEveryHost() async throws {
        let fixture = try await SimFixture.start(extraArgs: ["--public-url", "https://box.example:9443/prefix"])
        defer { fixture.stop() }
        assertBase(try urls(fixture, headers: [:]), "https://box.example:9443/prefix")
    }

    func testAMalformedPublicURLIsRefusedWithOneLine() async throws {
        for (option, expected) in [("ftp://x", "expected [api|upload|dl|app=]http(s)://host"),
                                   ("cdn=https://x", "unknown role 'cdn'"),
                                   ("dl=https://a b", "expected")] {
            do {
                let sim = try await BoxSimProcess.start(extraArgs: ["--public-url", option])
                sim.stop()
                XCTFail("--public-url \(option) was accepted")
            } catch BoxSimProcessError.exitedBeforeReady(let status, let stderr) {
                XCTAssertNotEqual(status, 0)
                XCTAssertTrue(stderr.contains(expected), stderr)
            }
        }
    }
}
