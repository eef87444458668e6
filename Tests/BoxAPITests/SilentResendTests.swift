import BoxTestSupport
import Foundation
import XCTest

@testable import BoxAPI

/// A request on a kept-alive connection that Box carried out, whose connection then closed before any answer:
/// libcurl sends it again by itself, with no error.
final class SilentResendTests: BoxSimClientTestCase {
    func testAFolderMadeByAnAttemptWhoseConnectionClosedUnansweredIsReturned() async throws {
        let (sim, client) = try await start()
        _ = try await client.folder(id: "0")  // a connection to reuse
        try BoxSimAPI(sim).cutConnections(pathPrefix: "/2.0/folders", method: "POST", phase: .afterHandling, count: 1)
        let made = try await client.createFolder(name: "Docs", parentID: "0")
        XCTAssertEqual(made.name, "Docs")
        let sent = try await logged(sim, atLeast: 2) { $0.method == "POST" && $0.path == "/2.0/folders" }
        XCTAssertEqual(sent.count, 2, "sent twice, by curl alone")
    }
}
