import BoxTestSupport
import Foundation
import XCTest

/// A name held on Box for a moment by the mount's own upload of a file renamed away meanwhile.
extension WriteRaceTests {
    /// Defect (model soak 20000, first seeds): `f2` was written, renamed to `f9` while its first upload was on the
    /// wire, and a new `f2` written. The first upload landed as `f2`; before its follow-up renamed it to `f9`, the
    /// new `f2`'s upload met it (409) and took it for someone else's file: the new content went up as
    /// "f2 (conflict …)", a conflict nobody caused.
    func testANewFileMeetingTheMountsOwnUploadAtItsNameWaitsForItsMove() async throws {
        let mount = try await startAndMount(options: ["write_back_delay=1", "events=off"])
        try await writeNewFile("first\n", to: "f2", in: mount, holdingItsUploadFor: 2000)
        try succeed(["mv", mount.path("f2"), mount.path("f9")])
        // The first upload lands as f2 about now; its follow-up (the rename to f9) is held 5 s, and the new f2's
        // upload reaches Box 2.5 s after it was sent: it meets the first file at f2.
        let second = try api.addFault(["path_prefix": UploadPaths.newFile, "method": "POST", "latency_ms": 2500,
                                       "count": 1])
        let move = try api.addFault(["path_prefix": "/2.0/files/", "method": "PUT", "latency_ms": 5000, "count": 1])
        try write("second\n", to: mount.path("f2"))
        try await waitUntilUsed(fault: second)
        try await waitUntilUsed(fault: move)
        try await waitForAnswers("POST", UploadPaths.newFile, status: 409)

        try await waitUntilSettled(mount)
        try await waitForBox("f2", text: "second\n")
        try await waitForBox("f9", text: "first\n")
        XCTAssertEqual(try boxNames(in: ""), ["f2", "f9"], "no conflicted copy")
        XCTAssertEqual(try succeed(["ls", mount.path("")]), "f2\nf9\n")
        XCTAssertEqual(try succeed(["cat", mount.path("f2")]), "second\n")
        XCTAssertEqual(try succeed(["cat", mount.path("f9")]), "first\n")
    }
}

extension WriteRaceTests {
    /// Defect (model seed 21073): a file renamed while its first upload was on the wire keeps, as the Box version
    /// its local copy is based on, the item Box answered, with the old name. A rename over that file then named the
    /// new content after that base: `mv f0 f3` left the file showing as `f0`, and `f3` answered `ENOENT`.
    func testARenameOverAFileRenamedDuringItsFirstUploadKeepsTheNameRenamedTo() async throws {
        let mount = try await startAndMount(options: ["write_back_delay=1", "events=off"])
        try await writeNewFile("first\n", to: "f0", in: mount, holdingItsUploadFor: 1500)
        // Held open, its local copy stays, based on what Box answers for the upload (named f0).
        let held = open(mount.path("f0"), O_RDWR)
        XCTAssertGreaterThanOrEqual(held, 0, "open: errno \(errno)")
        defer { close(held) }
        try succeed(["mv", mount.path("f0"), mount.path("f3")])
        try await waitForAnswers("POST", UploadPaths.newFile, status: 201)
        try await Poll.until("Box to rename the upload to f3", timeout: 30, interval: 0.1) {
            try self.boxNames(in: "") == ["f3"] ? true : nil
        }

        try write("second\n", to: mount.path("f0"))
        try succeed(["mv", mount.path("f0"), mount.path("f3")])
        XCTAssertEqual(try succeed(["ls", mount.path("")]), "f3\n")
        XCTAssertEqual(try succeed(["cat", mount.path("f3")]), "second\n")
        close(held)
        try await waitUntilSettled(mount)
        try await waitForBox("f3", text: "second\n")
        XCTAssertEqual(try boxNames(in: ""), ["f3"])
        XCTAssertEqual(try succeed(["cat", mount.path("f3")]), "second\n")
    }
}
