import BoxTestSupport
import Foundation
import XCTest

/// A file written here whose folder is deleted on Box before its upload: Box can no longer take it, so its content is
/// kept in the recovery place in `cache_dir`, the journal lets it go, the log and `boxfs status` say where it is.
final class RecoveryTests: WriteTestCase {
    private func log() -> String {
        daemonLogs.last.flatMap { try? String(contentsOf: $0, encoding: .utf8) } ?? ""
    }

    private func recovered(_ status: [String: Any]) -> [String: Any]? { status["recovered"] as? [String: Any] }

    /// Writes `docs/new.txt` (a delay of 3 s before its upload) and deletes `docs` on Box meanwhile; answers the
    /// bytes written and the folder's Box id.
    private func writeIntoAFolderDeletedOnBox(_ fixture: MountFixture, before: () throws -> Void = {}) throws
        -> (Data, String)
    {
        XCTAssertEqual(try succeed(["ls", fixture.path("docs")]), "a.txt\n")
        let docs = try XCTUnwrap(try api.entry(at: "docs"))
        try before()
        let bytes = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try bytes.write(to: URL(fileURLWithPath: fixture.path("docs/new.txt")))
        try api.call("DELETE", "/2.0/folders/\(docs.id)?recursive=true")
        return (bytes, docs.id)
    }

    func testAFileWhoseFolderIsDeletedOnBoxBeforeItsUploadIsKeptInTheRecoveryPlace() async throws {
        let fixture = try await startAndMount(texts: ["docs/a.txt": "a\n"], options: ["write_back_delay=3"])
        let (bytes, _) = try writeIntoAFolderDeletedOnBox(fixture)

        let status = try await Poll.until("status to show the recovered file", timeout: 30, interval: 0.2) {
            let json = try self.statusJSON(fixture)
            return self.recovered(json) != nil ? json : nil
        }
        let kept = try XCTUnwrap(recovered(status))
        let directory = try XCTUnwrap(kept["directory"] as? String)
        XCTAssertEqual(kept["files"] as? [String], ["docs/new.txt"], "\(status)")
        XCTAssertEqual((kept["count"] as? NSNumber)?.intValue, 1)
        XCTAssertTrue(directory.hasPrefix(try XCTUnwrap(cacheDirectory).path + "/"), directory)
        XCTAssertTrue(directory.hasSuffix("/recovered/0"), directory)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: directory + "/docs/new.txt")), bytes, "byte-exact")
        XCTAssertEqual((status["pending"] as? NSNumber)?.intValue, 0, "the journal let it go: \(status)")
        XCTAssertEqual((status["uploads"] as? [Any])?.count, 0, "\(status)")
        let text = try succeed([try MountFixture.locateBinary().path, "status", fixture.mountpoint.path])
        XCTAssertTrue(text.contains("recovered: 1 file(s) whose folder was deleted on Box, kept in \(directory)"), text)
        XCTAssertTrue(text.contains("\(directory)/docs/new.txt"), text)
        let line = "upload of \"docs/new.txt\": its folder is gone from Box; the local content is kept in \(directory)/docs/new.txt"
        XCTAssertEqual(log().components(separatedBy: line).count - 1, 1, log())
        XCTAssertNil(try api.entry(at: "docs"), "nothing was made on Box")
        try await Poll.until("the file to leave the mount", timeout: 10, interval: 0.2) {
            FileManager.default.fileExists(atPath: fixture.path("docs/new.txt")) ? nil : true
        }
    }

    /// The folder's look fails for a moment (503 to every GET of it): no confirmation, so nothing is moved and the
    /// upload stays journaled; once the folder answers (404), the content is kept.
    func testAFolderLookThatFailsForAMomentMovesNothing() async throws {
        let fixture = try await startAndMount(texts: ["docs/a.txt": "a\n"], options: ["write_back_delay=3"])
        var docsID = ""
        let (bytes, _) = try writeIntoAFolderDeletedOnBox(fixture) {
            docsID = try XCTUnwrap(try api.entry(at: "docs")).id
            try api.addFault(["path_prefix": "/2.0/folders/\(docsID)", "method": "GET", "error_status": 503])
        }
        let sim = try XCTUnwrap(boxsim)
        // The upload met the deleted folder (404) and its look at the folder failed whole (5 sends, all 503).
        try await Poll.until("a failed look at the folder", timeout: 30, interval: 0.2) { () -> Bool? in
            let log = try sim.requestLog()
            let uploads = log.filter { $0.method == "POST" && $0.path == "/api/2.0/files/content" && $0.status == 404 }
            let looks = log.filter { $0.method == "GET" && $0.path == "/2.0/folders/\(docsID)" && $0.status == 503 }
            return !uploads.isEmpty && looks.count >= 5 ? true : nil
        }
        let status = try await Poll.until("the upload to wait for another try", timeout: 15, interval: 0.2) {
            () -> [String: Any]? in
            let json = try self.statusJSON(fixture)
            let upload = (json["uploads"] as? [[String: Any]])?.first
            return (upload?["last_error"] as? String)?.contains("looking at its folder") == true ? json : nil
        }
        XCTAssertNil(recovered(status), "nothing kept before Box said the folder is gone: \(status)")
        XCTAssertEqual((status["pending"] as? NSNumber)?.intValue, 1, "still journaled: \(status)")
        XCTAssertEqual((status["uploads"] as? [[String: Any]])?.first?["state"] as? String, "retrying", "\(status)")
        XCTAssertFalse(log().contains("the local content is kept in"), log())

        try api.clearFaults()
        try succeed([try MountFixture.locateBinary().path, "retry", fixture.mountpoint.path])
        let kept = try await Poll.until("the file kept once the folder answers", timeout: 30, interval: 0.2) {
            self.recovered(try self.statusJSON(fixture))
        }
        let directory = try XCTUnwrap(kept["directory"] as? String)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: directory + "/docs/new.txt")), bytes)
    }
}
