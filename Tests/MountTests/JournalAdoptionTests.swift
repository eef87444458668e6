import BoxTestSupport
import Foundation
import XCTest

/// A pending upload names its Box folder by id, so any later read-write mount of the same account and
/// cache folder finishes what a crashed mount of another folder left journaled.
final class JournalAdoptionTests: WriteTestCase {
    func testAMountOfAnotherFolderFinishesWhatACrashedMountLeft() async throws {
        let sim = try await startBoxSim(texts: ["sub/keep.txt": "kept\n", "top.txt": "top\n"])
        let cache = try makeTemporaryDirectory("boxfs-cache")
        let first = try MountFixture.mount(
            sim, source: "box:/sub", options: ["cache_dir=\(cache.path)", "write_back_delay=600"])
        try write("left behind\n", to: first.path("new.txt"))
        XCTAssertNil(try api.entry(at: "sub/new.txt"), "not uploaded before the kill")
        try await crash(first)

        let second = try MountFixture.mount(sim, source: "box:", options: ["cache_dir=\(cache.path)"])
        defer { second.unmount() }
        try await waitForBox("sub/new.txt", text: "left behind\n")
        XCTAssertEqual(try succeed(["cat", second.path("sub/new.txt")]), "left behind\n")
    }
}
