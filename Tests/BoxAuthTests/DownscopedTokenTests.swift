import BoxAPI
import BoxAuth
import BoxTestSupport
import CurlHTTP
import Foundation
import XCTest

/// Token exchange against a real boxsim, through the Box client the mount uses: the downscoped token
/// reads, every write is refused, and the refusal (403 `insufficient_scope`) never costs a new token.
final class DownscopedTokenTests: XCTestCase {
    func testADownscopedTokenReadsButCannotWrite() async throws {
        let sim = try await BoxSimProcess.start(seed: try SeedTree.make(texts: ["a.txt": "alpha\n"]))
        defer { sim.stop() }
        let http = HTTPClient()
        let endpoints = BoxEndpoints(serverBase: sim.baseURL)
        let parent = Authenticator.fixed(sim.developerToken)
        let exchange = TokenExchangeSource(
            endpoint: TokenEndpoint(apiBase: sim.baseURL, http: http), parent: parent, scopes: ["root_readonly"],
            resource: sim.baseURL + "/2.0/folders/0")
        let client = BoxClient(endpoints: endpoints, http: http, tokens: Authenticator(source: exchange))

        let names = try await client.folderItems(id: "0").map(\.name)
        XCTAssertEqual(names, ["a.txt"], "the downscoped token reads")
        let local = FileManager.default.temporaryDirectory.appendingPathComponent("upload-\(UUID().uuidString)")
        try Data("new\n".utf8).write(to: local)
        defer { try? FileManager.default.removeItem(at: local) }
        let writes: [(String, () async throws -> Void)] = [
            ("create a folder", { _ = try await client.createFolder(name: "new folder", parentID: "0") }),
            ("upload a file", { _ = try await client.uploadFile(path: local.path, name: "new.txt", parentID: "0") }),
        ]
        for (what, write) in writes {
            do {
                try await write()
                XCTFail("a root_readonly token could \(what)")
            } catch let error as BoxAPIError {
                XCTAssertEqual(error.kind, .forbidden, "\(what): \(error)")
                XCTAssertTrue(error.isInsufficientScope, "\(what): \(error)")
            }
        }
        let tokenCalls = try sim.requestLog().filter { $0.path == "/oauth2/token" }
        XCTAssertEqual(tokenCalls.map(\.status), [200], "one exchange; a scope refusal asks for no new token")

        // The same writes with the parent's token succeed, so the refusals were the scope's doing.
        let full = BoxClient(endpoints: endpoints, http: http, tokens: parent)
        let created = try await full.createFolder(name: "new folder", parentID: "0")
        XCTAssertEqual(created.name, "new folder")
    }
}
