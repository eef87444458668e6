import BoxTestSupport
import Foundation
import XCTest

/// A new file renamed while its first upload is on the wire, then the daemon killed before Box's answer comes:
/// Box stores the file under the name it had when it was sent, which the journal no longer names.
extension CrashRecoveryTests {
    /// Writes the new file `source`, has Box hold its upload 2 s, renames it to `destination` meanwhile, kills the
    /// daemon, lets Box store the upload under `source`, and mounts again.
    private func killAfterARenameDuringTheFirstUpload(from source: String, to destination: String,
                                                      texts: [String: String] = [:]) async throws -> MountFixture {
        let mount = try await startAndMount(texts: texts)
        try api.addFault(["path_prefix": UploadPaths.newFile, "method": "POST", "latency_ms": 2000, "count": 1])
        try write("renamed content\n", to: mount.path(source))
        try await waitUntilUploading(source, in: mount)
        try succeed(["mv", mount.path(source), mount.path(destination)])
        try await crash(mount)
        let sim = try XCTUnwrap(boxsim)
        try await Poll.until("Box to store the held upload") {
            try sim.requestLog().matching("POST", UploadPaths.newFile).succeeded.isEmpty ? nil : true
        }
        XCTAssertNotNil(try api.entry(at: source), "Box stored the upload under the name it was sent with")
        return try mountWritable()
    }

    /// Defect (seeds 8143, 11037 of the reference-model tier): the next mount sent the content up again as a new
    /// file under the new name, and Box kept the file at the name it was renamed from.
    func testAKillAfterARenameDuringTheFirstUploadLeavesNoFileAtTheOldName() async throws {
        let mount = try await killAfterARenameDuringTheFirstUpload(from: "draft.txt", to: "final.txt")
        try await Poll.until("Box to hold the file at its new name only", timeout: 60) {
            try self.boxNames(in: "") == ["final.txt"] ? true : nil
        }
        try await waitForBox("final.txt", text: "renamed content\n")
        XCTAssertEqual(try succeed(["ls", mount.mountpoint.path]), "final.txt\n")
        XCTAssertEqual(try succeed(["cat", mount.path("final.txt")]), "renamed content\n")
        XCTAssertEqual(try requests().matching("POST", UploadPaths.newFile).succeeded.count, 1,
                       "the file that landed was moved, not sent again")
    }

    /// Defect (seed 10112): the same for an editor's save, a new file renamed over an existing one: the existing
    /// file got the content as its next version, and the new file stayed on Box under its first name.
    func testAKillAfterARenameOverAFileDuringTheFirstUploadLeavesNoFileAtTheOldName() async throws {
        let mount = try await killAfterARenameDuringTheFirstUpload(from: "tmp.swp", to: "doc.txt",
                                                                   texts: ["doc.txt": "old doc\n"])
        try await Poll.until("Box to hold the saved file only", timeout: 60) {
            try self.boxNames(in: "") == ["doc.txt"] ? true : nil
        }
        try await waitForBox("doc.txt", text: "renamed content\n")
        XCTAssertEqual(try succeed(["ls", mount.mountpoint.path]), "doc.txt\n")
        XCTAssertEqual(try succeed(["cat", mount.path("doc.txt")]), "renamed content\n")
    }
}
