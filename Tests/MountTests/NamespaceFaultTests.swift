import BoxTestSupport
import Foundation
import XCTest

/// `mkdir`, `rmdir`, `unlink` and `rename` happen on Box before they return; a transient failure on the way
/// (a 5xx, a 429, an answer lost after Box acted) is retried by the client's retry policy, and a repeat that
/// meets the effect of its own first attempt counts as success.
final class NamespaceFaultTests: WriteTestCase {
    /// Seeds a folder and a file to work on; answers their Box ids.
    private func seed() async throws -> (mount: MountFixture, folderID: String, fileID: String) {
        let mount = try await startAndMount(texts: ["gone.txt": "to be removed\n", "old.txt": "renamed\n",
                                                    "empty/.keep": ""])
        let api = try self.api
        let folder = try XCTUnwrap(try api.entry(at: "empty"))
        try succeed(["rm", mount.path("empty/.keep")])
        let file = try XCTUnwrap(try api.entry(at: "gone.txt"))
        return (mount, folder.id, file.id)
    }

    /// Runs every namespace operation once with `fault` (a rule without a path) on its own request, and checks
    /// that each succeeded, that Box shows the result, and that the request went to Box exactly twice: the
    /// failed attempt, then one repeat.
    private func eachOperationSucceeds(despite fault: [String: Any], failedStatus: Int) async throws {
        let (mount, folderID, fileID) = try await seed()
        let api = try self.api
        let renamed = try XCTUnwrap(try api.entry(at: "old.txt"))
        let operations: [(method: String, path: String, command: [String])] = [
            ("POST", "/2.0/folders", ["mkdir", mount.path("made")]),
            ("DELETE", "/2.0/folders/\(folderID)", ["rmdir", mount.path("empty")]),
            ("DELETE", "/2.0/files/\(fileID)", ["rm", mount.path("gone.txt")]),
            ("PUT", "/2.0/files/\(renamed.id)", ["mv", mount.path("old.txt"), mount.path("new.txt")]),
        ]
        for operation in operations {
            var rule = fault
            rule["method"] = operation.method
            rule["path_prefix"] = operation.path
            try api.addFault(rule)
            let before = try requests().map(\.seq).max() ?? 0
            try succeed(operation.command)
            let log = try requests().after(before).matching(operation.method, operation.path)
            XCTAssertEqual(log.map(\.status).first, failedStatus, "\(operation.command): the fault hit\n\(log.summary)")
            XCTAssertEqual(log.count, 2, "\(operation.command): one failure, one repeat\n\(log.summary)")
            XCTAssertTrue((200..<300).contains(log.last?.status ?? 0), log.summary)
        }
        XCTAssertEqual(try api.entry(at: "made")?.isFolder, true)
        XCTAssertEqual(try boxNames(in: ""), ["made", "new.txt"])
        XCTAssertEqual(try api.entry(at: "new.txt")?.id, renamed.id)
        XCTAssertEqual(try succeed(["ls", mount.mountpoint.path]), "made\nnew.txt\n")
    }

    func testMkdirRmdirUnlinkAndRenameRetryAServerErrorAnsweredOnce() async throws {
        try await eachOperationSucceeds(despite: ["error_status": 500, "count": 1], failedStatus: 500)
    }

    func testMkdirRmdirUnlinkAndRenameWaitOutA429WithRetryAfter() async throws {
        try await eachOperationSucceeds(despite: ["burst_429": 1, "retry_after": 1, "count": 1], failedStatus: 429)
    }

    func testAMkdirWhoseAnswerIsLostSucceedsWithTheFolderItMade() async throws {
        // Box makes the folder, but the connection drops before the client reads the answer: the repeat meets
        // 409 item_name_in_use naming the folder the first attempt made.
        let mount = try await startAndMount()
        let api = try self.api
        try api.addFault(["path_prefix": "/2.0/folders", "method": "POST", "cut_after_bytes": 10, "count": 1])
        try succeed(["mkdir", mount.path("made")])
        let log = try requests().matching("POST", "/2.0/folders")
        XCTAssertEqual(log.map(\.status), [201, 409], log.summary)
        XCTAssertLessThanOrEqual(log.first?.bytesSent ?? .max, 10, "the first answer was cut")
        XCTAssertEqual(try boxNames(in: ""), ["made"])

        // The mount knows the folder by its Box id: what is written into it lands there.
        try write("inside\n", to: mount.path("made/inside.txt"))
        try await waitForBox("made/inside.txt", text: "inside\n")
    }
}
