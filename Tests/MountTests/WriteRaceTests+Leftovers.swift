import BoxTestSupport
import Foundation
import XCTest

/// Files of the mount's own making that nobody wants (here: a new file's upload that landed under its old name
/// after an editor-style rename over an existing file), whose removal from Box fails or is cut short.
extension WriteRaceTests {
    /// The landed temporary file's removal fails with 503s beyond the client's own retries.
    private func strayWhoseRemovalFails() async throws -> MountFixture {
        let mount = try await startAndMount(texts: ["f": "old f\n"])
        try await renameDuringFirstUpload("new f\n", from: "tmp", to: "f", in: mount, latency: 1000, faults: [
            ["path_prefix": "/2.0/files/", "method": "DELETE", "error_status": 503, "count": 5]])
        try await waitForAnswers("DELETE", "/2.0/files/[0-9]+", status: 503, count: 5)
        try await waitUntilSettled(mount)
        try await waitForBox("f", text: "new f\n")
        return mount
    }

    /// Defect (seed 9220 of the reference-model tier): the removal of a leftover was a task of the running
    /// daemon only; a kill, or a removal that failed, left it on Box for good, holding a name the mount shows free.
    func testALeftoverWhoseRemovalFailedIsRemovedAfterAKillAndRemount() async throws {
        let mount = try await strayWhoseRemovalFails()
        try await crash(mount)
        let again = try mountWritable()
        try await Poll.until("the leftover to leave Box", timeout: 30) { try self.boxNames(in: "") == ["f"] ? true : nil }
        XCTAssertEqual(try succeed(["ls", again.mountpoint.path]), "f\n")
        XCTAssertEqual(try succeed(["cat", again.path("f")]), "new f\n")
    }

    /// Defect (seed 9220): a new file named like a leftover whose removal had failed met Box's 409 for it and
    /// became a conflicted copy nobody caused.
    func testANewFileNamedLikeALeftoverWhoseRemovalFailedTakesItsName() async throws {
        let mount = try await strayWhoseRemovalFails()
        XCTAssertEqual(try succeed(["ls", mount.mountpoint.path]), "f\n", "the leftover is not shown")
        try write("again\n", to: mount.path("tmp"))
        try await waitUntilSettled(mount)
        try await waitForBox("tmp", text: "again\n", timeout: 30)
        XCTAssertEqual(try boxNames(in: ""), ["f", "tmp"], "no conflicted copy")
        XCTAssertEqual(try succeed(["cat", mount.path("tmp")]), "again\n")
        XCTAssertEqual(try succeed(["cat", mount.path("f")]), "new f\n")
    }
}
