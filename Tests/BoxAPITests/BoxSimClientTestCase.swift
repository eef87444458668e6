import BoxAuth
import BoxTestSupport
import CurlHTTP
import Foundation
import XCTest

@testable import BoxAPI

/// Tests of the client against a real boxsim process over real sockets: starts boxsim and a client
/// for it, stops both after the test, and reads what went over the wire from boxsim's request log.
class BoxSimClientTestCase: XCTestCase {
    private var sim: BoxSimProcess?
    private var http: HTTPClient?

    override func tearDown() {
        http?.shutdown()
        sim?.stop()
        super.tearDown()
    }

    /// Starts boxsim with `seed` and returns a client for `token` (default: boxsim's developer token).
    func start(seed: URL? = nil, token: String? = nil) async throws -> (BoxSimProcess, BoxClient) {
        let sim = try await BoxSimProcess.start(seed: seed)
        let http = HTTPClient()
        self.sim = sim
        self.http = http
        let client = BoxClient(
            endpoints: BoxEndpoints(serverBase: sim.baseURL), http: http,
            tokens: StaticTokenProvider(token: token ?? sim.developerToken))
        return (sim, client)
    }

    /// The log once it holds at least `count` entries matching `filter` (or after 5 s): boxsim appends
    /// an entry right after the response is sent, which can be a moment after the client has it.
    func logged(
        _ sim: BoxSimProcess, atLeast count: Int, where filter: (LoggedRequest) -> Bool
    ) async throws -> [LoggedRequest] {
        let deadline = ContinuousClock.now + .seconds(5)
        while true {
            let matching = try sim.requestLog().filter(filter)
            if matching.count >= count || ContinuousClock.now > deadline { return matching }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
