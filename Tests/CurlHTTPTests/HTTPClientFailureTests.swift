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

    /// Cancellations racing with submission, transfer and completion: every request ends exactly once, either
    /// with its full body or with CancellationError, and the driver keeps working.
    @Test func cancellationRacesEndEveryRequestExactlyOnce() async throws {
        try await withTestServer { server in
            let client = HTTPClient()
            let outcomes = await withTaskGroup(of: String.self) { group in
                for index in 0..<60 {
                    let task = Task { try await client.send(HTTPRequest(url: server.url(index % 3 == 0 ? "/dribble" : "/hello"))) }
                    group.addTask {
                        try? await Task.sleep(for: .microseconds(index * 500))
                        task.cancel()
                        switch await task.result {
                        case .success(let response): return response.body == Data("hello, world".utf8) ? "ok" : "bad body"
                        case .failure(let error): return error is CancellationError ? "cancelled" : "error \(error)"
                        }
                    }
                }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(outcomes.count == 60)
            #expect(outcomes.contains("cancelled"))  // every /dribble request is still running when cancelled
            #expect(outcomes.allSatisfy { $0 == "ok" || $0 == "cancelled" }, "\(outcomes)")
            let after = try await client.send(HTTPRequest(url: server.url("/hello")))
            #expect(after.status == 200)
        }
    }

    @Test func connectionCutMidBodyIsTransient() async throws {
        try await withTestServer { server in
            let start = clock.now
            await #expect {
                _ = try await HTTPClient().send(HTTPRequest(url: server.url("/cut")))
            } throws: { error in
                guard let error = error as? HTTPError else { return false }
                // 18 = CURLE_PARTIAL_FILE: fewer body bytes than Content-Length promised.
                return error.kind == .transport && error.isTransient && error.curlCode == 18
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
