import BoxTestSupport
import Foundation
import XCTest

/// `boxfs status` names a waiting upload by its path below the mount, also when the mount does not hold its folder.
extension StatusCommandTests {
    /// After a kill and a new mount (whose tree holds only the root) with Box refusing every upload, the file waiting
    /// in `docs/deep/` was shown as `new.txt`.
    func testAWaitingUploadInASubFolderIsNamedByItsPathAfterARemount() async throws {
        let first = try await startAndMount(options: ["write_back_delay=600"])
        try succeed(["mkdir", "-p", first.path("docs/deep")])
        try write("waiting\n", to: first.path("docs/deep/new.txt"))
        XCTAssertEqual(uploads(try statusJSON(first)).compactMap { $0["name"] as? String }, ["docs/deep/new.txt"])
        try await crash(first)

        try api.addFault(["path_prefix": "/api/2.0/files/content", "error_status": 503, "error_rate": 1])
        let second = try mountWritable(options: ["write_back_delay=600"])
        let json = try await Poll.until("status to list the journaled upload", timeout: 30) { () -> [String: Any]? in
            let json = try self.statusJSON(second)
            return self.uploads(json).isEmpty ? nil : json
        }
        XCTAssertEqual(uploads(json).compactMap { $0["name"] as? String }, ["docs/deep/new.txt"], "\(json)")
        XCTAssertTrue(try status([second.mountpoint.path]).contains("docs/deep/new.txt"), "the text form names it too")
        try api.clearFaults()
    }
}
