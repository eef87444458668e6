import BoxTestSupport
import Foundation
import XCTest

/// A file changed on Box (a new version uploaded elsewhere) is never served from what the mount,
/// its block cache or the kernel cached of the old version.
final class RemoteChangeTests: MountTestCase {
    func uploadNewVersion(_ sim: BoxSimProcess, fileID: String, text: String) throws {
        let body = FileManager.default.temporaryDirectory.appendingPathComponent("version-\(UUID().uuidString)")
        try Data(text.utf8).write(to: body)
        defer { try? FileManager.default.removeItem(at: body) }
        let result = try Shell.run([
            "curl", "-sf", "-X", "POST", "-H", "Authorization: Bearer \(sim.developerToken)",
            "-F", "attributes={}", "-F", "file=@\(body.path)", "\(sim.baseURL)/api/2.0/files/\(fileID)/content",
        ])
        XCTAssertEqual(result.status, 0, "uploading a new version: \(result.stderr)")
    }

    func fileID(_ sim: BoxSimProcess, named name: String) throws -> String {
        let listing = try Shell.run([
            "curl", "-sf", "-H", "Authorization: Bearer \(sim.developerToken)", "\(sim.baseURL)/2.0/folders/0/items",
        ])
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [String: Any])
        let entries = try XCTUnwrap(json["entries"] as? [[String: Any]])
        return try XCTUnwrap(entries.first { $0["name"] as? String == name }?["id"] as? String)
    }

    func testANewVersionOnBoxIsReadNotTheCachedOldOne() async throws {
        let seed = try SeedTree.make(texts: ["doc.txt": "version one\n"])
        let mount = try await mountBoxSim(
            seed: seed, options: ["dir_cache_ttl=0.5", "entry_timeout=0.2", "attr_timeout=0.2"])
        let sim = try XCTUnwrap(boxsim)
        XCTAssertEqual(try succeed(["cat", mount.path("doc.txt")]), "version one\n")
        // Keep a handle open too: the kernel's page cache for the inode must be dropped, not just the name.
        let held = try XCTUnwrap(FileHandle(forReadingAtPath: mount.path("doc.txt")))
        defer { try? held.close() }

        try uploadNewVersion(sim, fileID: try fileID(sim, named: "doc.txt"), text: "version two is longer\n")
        // The new version's event arrives within about 2 s (the mount's own download woke the stream a moment
        // before, and wake-ups are fetched at most every 2 s); until then the cached version may be shown.
        try await Poll.until("the new version read", timeout: 6, interval: 0.2) {
            try self.succeed(["cat", mount.path("doc.txt")]) == "version two is longer\n" ? true : nil
        }
        XCTAssertEqual(try succeed(["stat", "-c", "%s", mount.path("doc.txt")]), "22\n")
    }

    /// Defect (found by the reference-model tier): a file the mount listed at one version, read after Box moved
    /// on to another the mount had not learnt of yet, got the newer bytes keyed by the older version; the whole
    /// read's SHA-1 check refused the mix: EIO. Downloads ask Box for the version the mount lists, so the read
    /// gives that version whole until the mount learns of the new one.
    func testAFileChangedOnBoxBeforeTheMountKnowsReadsWholeTheVersionItLists() async throws {
        let seed = try SeedTree.make(texts: ["doc.txt": "version one\n"])
        let mount = try await mountBoxSim(seed: seed, options: ["events=off", "dir_cache_ttl=600", "cache=off"])
        let sim = try XCTUnwrap(boxsim)
        XCTAssertEqual(try succeed(["stat", "-c", "%s", mount.path("doc.txt")]), "12\n")
        try uploadNewVersion(sim, fileID: try fileID(sim, named: "doc.txt"), text: "version two!\n")

        XCTAssertEqual(try succeed(["cat", mount.path("doc.txt")]), "version one\n", "the version the mount lists")
        let downloads = try sim.requestLog().filter { $0.path.hasSuffix("/content") && $0.method == "GET" }
        XCTAssertFalse(downloads.isEmpty)
        XCTAssertTrue(downloads.allSatisfy { ($0.query ?? "").contains("version=") }, "\(downloads.map(\.query))")
    }
}
