import Foundation
import Synchronization
import Testing
import CurlHTTP

/// A sink that keeps what it is given and can refuse after some bytes.
final class CollectingSink: HTTPBodySink {
    struct State {
        var starts: [Int] = []
        var bytes = Data()
        var chunks = 0
    }
    let state = Mutex(State())
    let refuseAfter: Int?

    init(refuseAfter: Int? = nil) {
        self.refuseAfter = refuseAfter
    }

    func responseStarted(status: Int, headers: HTTPHeaders) {
        state.withLock {
            $0.starts.append(status)
            $0.bytes = Data()
        }
    }

    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        state.withLock { state in
            if let refuseAfter, state.bytes.count >= refuseAfter { return false }
            state.bytes.append(contentsOf: bytes)
            state.chunks += 1
            return true
        }
    }
}

@Suite struct HTTPClientSinkTests {
    @Test func aSuccessfulBodyArrivesInTheSinkPieceByPiece() async throws {
        let file = try TestFiles.random(size: 5 << 20)
        defer { TestFiles.remove(file.path) }
        let sink = CollectingSink()
        try await withTestServer { server in
            let response = try await HTTPClient().send(
                HTTPRequest(url: server.url("/file?path=\(file.path)"), responseBody: .sink(sink)))
            #expect(response.status == 200)
            #expect(response.body.isEmpty)
            #expect(response.bodyBytesWritten == Int64(file.contents.count))
        }
        let state = sink.state.withLock { $0 }
        #expect(state.starts == [200])
        #expect(state.bytes == file.contents)
        #expect(state.chunks > 1, "delivered as it arrived, not in one piece at the end")
    }

    @Test func anErrorBodyStaysInMemory() async throws {
        let sink = CollectingSink()
        try await withTestServer { server in
            let request = HTTPRequest(url: server.url("/missing"), responseBody: .sink(sink))
            let response = try await HTTPClient().send(request)
            #expect(response.status == 404)
            #expect(String(decoding: response.body, as: UTF8.self) == "nothing here")
        }
        #expect(sink.state.withLock { $0.starts.isEmpty && $0.bytes.isEmpty })
    }

    @Test func aSinkThatRefusesAbortsTheTransfer() async throws {
        let file = try TestFiles.random(size: 4 << 20)
        defer { TestFiles.remove(file.path) }
        let sink = CollectingSink(refuseAfter: 100_000)
        try await withTestServer { server in
            let request = HTTPRequest(url: server.url("/file?path=\(file.path)"), responseBody: .sink(sink))
            await #expect {
                _ = try await HTTPClient().send(request)
            } throws: { error in
                (error as? HTTPError)?.kind == .responseDestination
            }
        }
    }

    @Test func destinationsWithSinksCompareByIdentity() {
        let one = CollectingSink(), two = CollectingSink()
        #expect(HTTPResponseDestination.sink(one) == .sink(one))
        #expect(HTTPResponseDestination.sink(one) != .sink(two))
        #expect(HTTPResponseDestination.sink(one) != .memory)
    }
}
