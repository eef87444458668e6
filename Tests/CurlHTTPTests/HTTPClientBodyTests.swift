import Foundation
import Testing
import CurlHTTP

/// Uploads: the server answers "LENGTH SHA1" of what it received and echoes the framing headers it saw.
@Suite struct HTTPClientBodyTests {
    private func upload(_ body: HTTPBody, method: HTTPMethod, headers: HTTPHeaders = HTTPHeaders(),
                        to server: TestServer) async throws -> (digest: String, response: HTTPResponse) {
        let request = HTTPRequest(method: method, url: server.url("/digest"), headers: headers, body: body)
        let response = try await HTTPClient().send(request)
        #expect(response.status == 200)
        return (String(decoding: response.body, as: UTF8.self), response)
    }

    @Test func postOfDataArrivesWithContentLengthAndNoExpect() async throws {
        try await withTestServer { server in
            let data = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            let (digest, response) = try await upload(.data(data), method: .post, to: server)
            #expect(digest == "\(data.count) \(TestFiles.sha1Hex(data))")
            #expect(response.headers["X-Seen-Method"] == "POST")
            #expect(response.headers["X-Seen-Content-Length"] == "\(data.count)")
            #expect(response.headers["X-Seen-Transfer-Encoding"] == "none")
            #expect(response.headers["X-Seen-Expect"] == "none")
            #expect(response.headers["X-Seen-Content-Type"] == "none")
        }
    }

    @Test func emptyPostSendsZeroLength() async throws {
        try await withTestServer { server in
            let (digest, response) = try await upload(.empty, method: .post, to: server)
            #expect(digest == "0 \(TestFiles.sha1Hex(Data()))")
            #expect(response.headers["X-Seen-Content-Length"] == "0")
        }
    }

    @Test func putOfFileRangeArrivesByteExact() async throws {
        let file = try TestFiles.random(size: 3_000_000)
        defer { TestFiles.remove(file.path) }
        try await withTestServer { server in
            let range = 12_345..<(12_345 + 2_500_000)
            let body = HTTPBody.file(path: file.path, offset: Int64(range.lowerBound), length: Int64(range.count))
            let (digest, response) = try await upload(body, method: .put, to: server)
            #expect(digest == "\(range.count) \(TestFiles.sha1Hex(file.contents.subdata(in: range)))")
            #expect(response.headers["X-Seen-Method"] == "PUT")
        }
    }

    @Test func concatenationMixesDataAndFileRanges() async throws {
        let file = try TestFiles.random(size: 1_000_000)
        defer { TestFiles.remove(file.path) }
        try await withTestServer { server in
            let head = Data("--boundary\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\n".utf8)
            let tail = Data("\r\n--boundary--\r\n".utf8)
            let body = HTTPBody.concatenation([
                .data(head), .empty, .file(path: file.path, offset: 1, length: 999_998),
                .concatenation([.data(tail), .file(path: file.path, offset: 0, length: 10)]),
            ])
            let expected = head + file.contents.subdata(in: 1..<999_999) + tail + file.contents.prefix(10)
            #expect(body.length == Int64(expected.count))
            let headers: HTTPHeaders = ["Content-Type": "multipart/form-data; boundary=boundary"]
            let (digest, response) = try await upload(body, method: .patch, headers: headers, to: server)
            #expect(digest == "\(expected.count) \(TestFiles.sha1Hex(expected))")
            #expect(response.headers["X-Seen-Method"] == "PATCH")
            #expect(response.headers["X-Seen-Content-Type"] == "multipart/form-data; boundary=boundary")
        }
    }

    @Test func largeFileUploadArrivesIntact() async throws {
        let file = try TestFiles.random(size: 64 << 20)
        defer { TestFiles.remove(file.path) }
        try await withTestServer { server in
            let body = HTTPBody.file(path: file.path, offset: 0, length: Int64(file.contents.count))
            let (digest, _) = try await upload(body, method: .put, to: server)
            #expect(digest == "\(file.contents.count) \(TestFiles.sha1Hex(file.contents))")
        }
    }

    @Test func missingBodyFileFailsBeforeSending() async throws {
        try await withTestServer { server in
            let body = HTTPBody.file(path: "/nonexistent/boxfs-test", offset: 0, length: 10)
            await #expect {
                _ = try await HTTPClient().send(HTTPRequest(method: .put, url: server.url("/digest"), body: body))
            } throws: { error in
                (error as? HTTPError)?.kind == .requestBody && (error as? HTTPError)?.systemErrno == ENOENT
            }
        }
    }
}
