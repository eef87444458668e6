import BoxAPI
import BoxAuth
import CurlHTTP
import Foundation
import XCTest

@testable import WriteBack

/// What a leftover's removal concludes from an answer, and what it leaves journaled.
final class LeftoverRemovalTests: XCTestCase {
    /// Seed 65932704 (in-process, racing, faults `all`): a removal cut short by the mount stopping (its HTTP client
    /// shut down) was taken for Box refusing it for good, and the journal forgot the leftover, which Box then kept.
    func testARemovalCutShortByTheClientShuttingDownStaysJournaledForTheNextMount() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("leftovers-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let journal = try UploadJournal(directory: directory)
        let leftover = Leftover(fileID: "1006", etag: "1", parentID: "0", name: "f3")
        try await journal.noteLeftover(leftover)

        let http = HTTPClient()
        http.shutdown()
        let client = BoxClient(endpoints: BoxEndpoints(serverBase: "http://127.0.0.1:9"), http: http,
                               tokens: StaticTokenProvider(token: "token"))
        let outcome = await leftover.remove(client: client, journal: journal)
        guard case .interrupted = outcome else { return XCTFail("\(outcome): a stopping mount learnt nothing from Box") }
        XCTAssertEqual(try journal.leftovers().map(\.fileID), ["1006"], "the next mount removes it")
    }
}
