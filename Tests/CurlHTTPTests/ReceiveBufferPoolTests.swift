import Foundation
import Testing

@testable import CurlHTTP

/// Large bodies land in reused memory: a released body's buffer serves the next one, slices keep it
/// alive, and nothing but large successful bodies uses the pool.
@Suite struct ReceiveBufferPoolTests {
    @Test func aReleasedBodyGivesItsBufferBackForTheNextOne() async throws {
        let file = try TestFiles.random(size: 3 << 20)
        defer { TestFiles.remove(file.path) }
        let pool = ReceiveBufferPool(minimumSize: 1 << 20, maximumSize: 8 << 20, maximumIdleBytes: 16 << 20)
        try await withTestServer { server in
            let url = server.url("/file?path=\(file.path)")
            var slice: Data?
            do {
                let body = try await fetch(url, pool: pool)
                #expect(body == file.contents)
                #expect(pool.idleBytes == 0, "the body holds its buffer")
                slice = body[body.startIndex + 100..<body.startIndex + 200]
            }
            #expect(pool.idleBytes == 0, "a slice keeps the buffer alive")
            #expect(slice == file.contents[100..<200])
            slice = nil
            #expect(try await idleBytes(of: pool, reaching: 4 << 20) == 4 << 20,
                    "3 MiB rounds up to a 4 MiB buffer, back in the pool")
            let again = try await fetch(url, pool: pool)
            #expect(pool.idleBytes == 0, "the second body reuses it")
            #expect(again == file.contents)
        }
        #expect(try await idleBytes(of: pool, reaching: 4 << 20) == 4 << 20)
    }

    @Test func smallBodiesAndErrorBodiesDoNotUseThePool() async throws {
        let small = try TestFiles.random(size: 1000)
        defer { TestFiles.remove(small.path) }
        let pool = ReceiveBufferPool(minimumSize: 1 << 20, maximumSize: 8 << 20, maximumIdleBytes: 16 << 20)
        try await withTestServer { server in
            #expect(try await fetch(server.url("/file?path=\(small.path)"), pool: pool) == small.contents)
            _ = try await fetch(server.url("/missing"), pool: pool)
        }
        #expect(pool.idleBytes == 0, "nothing was ever taken")
    }

    @Test func theIdleLimitIsKept() throws {
        let pool = ReceiveBufferPool(minimumSize: 1 << 20, maximumSize: 8 << 20, maximumIdleBytes: 10 << 20)
        do {
            let bodies = (0..<4).map { _ in PooledBody(pool: pool, expectedCount: 4 << 20) }
            #expect(bodies.allSatisfy { $0 != nil })
            #expect(PooledBody(pool: pool, expectedCount: 9 << 20) == nil, "larger than the largest pooled size")
            #expect(pool.size(for: 100) == nil)
            #expect(pool.size(for: (1 << 20) + 1) == 2 << 20)
        }
        #expect(pool.idleBytes == 8 << 20, "two 4 MiB buffers kept, two unmapped")
    }

    /// Beyond `maximumIdleBytes`, buffers wait for reuse while the pool is in use, and go once it is not.
    @Test func buffersBeyondTheIdleLimitLingerWhileThePoolIsInUse() async throws {
        let pool = ReceiveBufferPool(minimumSize: 1 << 20, maximumSize: 8 << 20, maximumIdleBytes: 4 << 20,
                                     lingeringIdleBytes: 12 << 20, linger: .milliseconds(50))
        do {
            let bodies = (0..<4).map { _ in PooledBody(pool: pool, expectedCount: 4 << 20) }
            #expect(bodies.allSatisfy { $0 != nil })
        }
        #expect(pool.idleBytes == 12 << 20, "three 4 MiB buffers linger, the fourth is unmapped")
        let reused = PooledBody(pool: pool, expectedCount: 4 << 20)
        #expect(reused != nil && pool.idleBytes == 8 << 20, "a lingering buffer serves the next body")
        for _ in 0..<500 where pool.idleBytes > 4 << 20 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(pool.idleBytes == 4 << 20, "once no buffer is taken for a while, idle memory shrinks to the limit")
        _ = reused
    }

    @Test func aBodyLongerThanItsBufferCarriesOnInOrdinaryMemory() throws {
        let pool = ReceiveBufferPool(minimumSize: 1 << 20, maximumSize: 8 << 20, maximumIdleBytes: 16 << 20)
        var receiver = ResponseReceiver(destination: .memory, pool: pool)
        for line in ["HTTP/1.1 200 OK\r\n", "Content-Length: \(1 << 20)\r\n", "\r\n"] {
            Array(line.utf8).withUnsafeBytes { receiver.receiveHeaderLine($0) }
        }
        let chunk = [UInt8](repeating: 7, count: 300_000)
        for _ in 0..<4 { try chunk.withUnsafeBytes { try receiver.receiveBody($0) } }
        let body = receiver.takeBody()
        #expect(body.count == 1_200_000)
        #expect(body.allSatisfy { $0 == 7 })
        #expect(pool.idleBytes == 1 << 20, "the outgrown buffer went back at once")
    }

    /// The pool's idle bytes once they reach `expected`, or as they are after 5 s: a body's last reference may go a
    /// moment after the caller's, when the transfer that received it is let go on its own thread.
    private func idleBytes(of pool: ReceiveBufferPool, reaching expected: Int) async throws -> Int {
        for _ in 0..<250 where pool.idleBytes != expected { try await Task.sleep(for: .milliseconds(20)) }
        return pool.idleBytes
    }

    private func fetch(_ url: String, pool: ReceiveBufferPool) async throws -> Data {
        try await HTTPClient(receiveBufferPool: pool).send(HTTPRequest(url: url)).body
    }
}
