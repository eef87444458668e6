import Foundation
import Testing
import CurlHTTP

@Suite struct HTTPClientDownloadTests {
    @Test func responseBodyGoesToFileDescriptorAtOffset() async throws {
        let source = try TestFiles.random(size: 300_000)
        let targetPath = TestFiles.temporaryPath("target")
        defer { TestFiles.remove(source.path); TestFiles.remove(targetPath) }
        let descriptor = open(targetPath, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let prefix = Data("PREFIX".utf8)
        _ = prefix.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        try await withTestServer { server in
            let request = HTTPRequest(url: server.url("/file?path=\(source.path)"),
                                      responseBody: .fileDescriptor(descriptor, offset: Int64(prefix.count)))
            let response = try await HTTPClient().send(request)
            #expect(response.status == 200)
            #expect(response.body.isEmpty)
            #expect(response.bodyBytesWritten == Int64(source.contents.count))
        }
        let written = try Data(contentsOf: URL(fileURLWithPath: targetPath))
        #expect(written == prefix + source.contents)
    }

    @Test func errorBodyStaysInMemoryAndNeverReachesTheDescriptor() async throws {
        let targetPath = TestFiles.temporaryPath("untouched")
        defer { TestFiles.remove(targetPath) }
        let descriptor = open(targetPath, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        try await withTestServer { server in
            let request = HTTPRequest(url: server.url("/missing"), responseBody: .fileDescriptor(descriptor, offset: 0))
            let response = try await HTTPClient().send(request)
            #expect(response.status == 404)
            #expect(String(decoding: response.body, as: UTF8.self) == "nothing here")
            #expect(response.bodyBytesWritten == 0)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: targetPath)).isEmpty)
    }

    @Test func largeBodyArrivesIntact() async throws {
        let file = try TestFiles.random(size: 64 << 20)
        defer { TestFiles.remove(file.path) }
        try await withTestServer { server in
            let clock = ContinuousClock()
            let start = clock.now
            let response = try await HTTPClient().send(HTTPRequest(url: server.url("/file?path=\(file.path)")))
            let elapsed = clock.now - start
            #expect(response.status == 200)
            #expect(response.body.count == file.contents.count)
            #expect(response.body == file.contents)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print("64 MiB GET from the in-process debug server: \(String(format: "%.0f", 64 / seconds)) MiB/s")
        }
    }

    @Test func sixtyFourConcurrentRequestsAllCompleteCorrectly() async throws {
        let file = try TestFiles.random(size: 1 << 20)
        defer { TestFiles.remove(file.path) }
        try await withTestServer { server in
            let client = HTTPClient(configuration: HTTPClientConfiguration(maxConnectionsPerHost: 8))
            let results = try await withThrowingTaskGroup(of: (Int, HTTPResponse).self) { group in
                for index in 0..<64 {
                    let url = server.url("/file?path=\(file.path)&offset=\(index * 9_000)&length=\(1_000 + index * 7_001)")
                    group.addTask { (index, try await client.send(HTTPRequest(url: url))) }
                }
                return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
            }
            #expect(results.count == 64)
            for (index, response) in results {
                let range = (index * 9_000)..<(index * 9_000 + 1_000 + index * 7_001)
                #expect(response.status == 200)
                #expect(response.body == file.contents.subdata(in: range), "request \(index)")
            }
        }
    }
}
