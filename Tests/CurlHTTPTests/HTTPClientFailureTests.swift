import Foundation
import Testing
import CurlHTTP

@Suite struct HTTPClientFailureTests {
    private let clock = ContinuousClock()

    @Test func cancellingASlowRequestThrowsCancellationErrorPromptly() async throws {
        try await withTestServer { server in
            let client = HTTPClient()
            let task = Task { try await client.send(HTTPRequest(url: server.url("/dribble"))) }
            try await Task.sleep(for: .milliseconds(400))  // headers and a few body bytes are in
            let start = clock.now
            task.cancel()
            let result = await task.result
            #expect(clock.now - start < .seconds(2))
            #expect(throws: CancellationError.self) { try result.get() }
            // The driver is unharmed and keeps serving.
            let response = try await client.send(HTTPRequest(url: server.url("/hello")))
            #expect(response.status == 200)
        }
    }

    @Test func alreadyCancelledTaskNeverSends() async throws {
        try await withTestServer { server in
            let client = HTTPClient()
            let task = Task {
                while !Task.isCancelled { await Task.yield() }
                return try await client.send(HTTPRequest(url: server.url("/dribble")))
            }
            task.cancel()
            let start = clock.now
            let result = await task.result
            #expect(clock.now - start < .seconds(2))
            #expect(throws: CancellationError.self) { try result.get() }
        }
    }

    @Test func connectionCutMidBodyIsTransient() async throws {
        try await withTestServer { server in
            let start = clock.now
            await #expect {
                _ = try await HTTPClient().send(HTTPRequest(url: server.url("/cut")))
            } throws: { error in
                guard let error = error as? HTTPError else { return false }
                return error.kind == .transport && error.isTransient
            }
            #expect(clock.now - start < .seconds(10))
        }
    }

    @Test func stalledTransferHitsTheLowSpeedLimit() async throws {
        try await withTestServer { server in
            let timeouts = HTTPTimeouts(lowSpeedLimit: 1000, lowSpeedTime: .seconds(1))
            let start = clock.now
            await #expect {
                _ = try await HTTPClient().send(HTTPRequest(url: server.url("/stall"), timeouts: timeouts))
            } throws: { error in
                guard let error = error as? HTTPError else { return false }
                return error.isTimeout && error.isTransient
            }
            #expect(clock.now - start < .milliseconds(2900), "must fail before the server resumes at 3 s")
        }
    }

    @Test func totalTimeoutAbortsTheRequest() async throws {
        try await withTestServer { server in
            let timeouts = HTTPTimeouts(total: .milliseconds(300))
            await #expect {
                _ = try await HTTPClient().send(HTTPRequest(url: server.url("/dribble"), timeouts: timeouts))
            } throws: { error in
                (error as? HTTPError)?.isTimeout == true
            }
        }
    }

    @Test func shutdownFailsRequestsInFlightAndRejectsNewOnes() async throws {
        try await withTestServer { server in
            let client = HTTPClient()
            let task = Task { try await client.send(HTTPRequest(url: server.url("/dribble"))) }
            try await Task.sleep(for: .milliseconds(300))
            client.shutdown()
            client.shutdown()
            await #expect { try await task.value } throws: { ($0 as? HTTPError)?.kind == .shutdown }
            await #expect {
                _ = try await client.send(HTTPRequest(url: server.url("/hello")))
            } throws: { ($0 as? HTTPError)?.kind == .shutdown }
        }
    }
}
