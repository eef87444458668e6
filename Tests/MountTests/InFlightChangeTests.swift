import BoxTestSupport
import Foundation
import XCTest

/// A file changed, renamed or deleted while its upload is on the wire: Box ends up with what the mount shows.
final class InFlightChangeTests: WriteTestCase {
    /// Mounts with the first direct upload held by Box for two seconds, writes `name`, and waits until its upload
    /// is running; answers the mount.
    func startSlowUpload(of name: String, text: String, seed: [String: String] = [:]) async throws -> MountFixture {
        let mount = try await startAndMount(texts: seed)
        try api.addFault(["path_prefix": "/api/2.0/files/", "method": "POST", "latency_ms": 2000, "count": 1])
        try write(text, to: mount.path(name))
        try await waitUntilUploading(name, in: mount)
        return mount
    }

    /// Waits until the held upload has been answered by Box.
    func waitForTheHeldUpload() async throws {
        let sim = try XCTUnwrap(boxsim)
        try await Poll.until("the held upload to be answered") {
            try sim.requestLog().matching("POST", "/api/2.0/files/([0-9]+/)?content").isEmpty ? nil : true
        }
    }

    func testDeletingAFileWhileItUploadsLeavesNothingOnBox() async throws {
        let mount = try await startSlowUpload(of: "gone.txt", text: "deleted during its upload\n")
        try succeed(["rm", mount.path("gone.txt")])
        try fail(["cat", mount.path("gone.txt")], with: "No such file or directory")
        try await waitForTheHeldUpload()
        let api = try self.api
        try await Poll.until("gone.txt to be absent from Box") { try api.entry(at: "gone.txt") == nil ? true : nil }
        try await unmountAndWait(mount)
        XCTAssertEqual(try boxNames(in: ""), [])
    }

    func testRenamingAFileWhileItUploadsLandsItUnderTheNewName() async throws {
        let mount = try await startSlowUpload(of: "before.txt", text: "renamed during its upload\n",
                                              seed: ["dir/.keep": ""])
        try succeed(["mv", mount.path("before.txt"), mount.path("dir/after.txt")])
        try await waitForBox("dir/after.txt", text: "renamed during its upload\n")
        try await unmountAndWait(mount)
        XCTAssertEqual(try boxNames(in: ""), ["dir"])
        XCTAssertEqual(try boxNames(in: "dir"), [".keep", "after.txt"])
    }

    func testRewritingAFileWhileItUploadsEndsWithTheNewestContent() async throws {
        let mount = try await startSlowUpload(of: "doc.txt", text: "second\n", seed: ["doc.txt": "first\n"])
        let original = try XCTUnwrap(try api.entry(at: "doc.txt"))
        try write("third, written during the upload of the second\n", to: mount.path("doc.txt"))
        let saved = try await waitForBox("doc.txt", text: "third, written during the upload of the second\n")
        XCTAssertEqual(saved.id, original.id)
        try await unmountAndWait(mount)
        XCTAssertEqual(try boxNames(in: ""), ["doc.txt"], "our own earlier version is no conflict")
    }
}
