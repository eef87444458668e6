import BoxAuth
import BoxTestSupport
import CurlHTTP
import Foundation
import XCTest

@testable import BoxAPI

/// A request on a kept-alive connection that Box carried out, whose connection then closed before any answer.
final class SilentResendTests: XCTestCase {
    private var sim: BoxSimProcess?
    private var http: HTTPClient?

    override func tearDown() {
        http?.shutdown()
        sim?.stop()
        super.tearDown()
    }

    func testAFolderMadeByAnAttemptWhoseConnectionClosedUnansweredIsReturned() async throws {
        let sim = try await BoxSimProcess.start()
        let http = HTTPClient()
        self.sim = sim
        self.http = http
        let client = BoxClient(
            endpoints: BoxEndpoints(serverBase: sim.baseURL), http: http,
            tokens: StaticTokenProvider(token: sim.developerToken))
        _ = try await client.folder(id: "0")  // a connection to reuse
        try BoxSimAPI(sim).cutConnections(pathPrefix: "/2.0/folders", method: "POST", phase: .afterHandling, count: 1)
        let made = try await client.createFolder(name: "Docs", parentID: "0")
        XCTAssertEqual(made.name, "Docs")
        XCTAssertEqual(try sim.requestLog().matching("POST", "/2.0/folders").count, 2, "sent twice")
    }
}
