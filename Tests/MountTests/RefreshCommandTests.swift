import BoxTestSupport
import Foundation
import XCTest

/// `boxfs refresh [PATH] [--recursive]` lists a folder again from Box now (docs/SEMANTICS.md "Changes made
/// elsewhere"). These mounts neither follow events nor list again within the test (`events=off`,
/// `dir_cache_ttl=600`), so a change made through the API shows only through the refresh.
final class RefreshCommandTests: WriteTestCase {
    static let options = ["events=off", "dir_cache_ttl=600"]

    func refresh(_ arguments: [String]) throws -> CommandResult {
        try Shell.run([try MountFixture.locateBinary().path, "refresh"] + arguments)
    }

    func names(_ relative: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: try XCTUnwrap(mount).path(relative)).sorted()
    }

    func contents(_ relative: String) throws -> String? {
        try? String(contentsOfFile: try XCTUnwrap(mount).path(relative), encoding: .utf8)
    }

    func testAFileAddedElsewhereIsListedAfterARefreshOfItsFolder() async throws {
        try await startBoxSim(texts: ["dir/a.txt": "a\n", "dir/sub/b.txt": "b\n"])
        try mountWritable(options: Self.options)
        XCTAssertEqual(try names("dir"), ["a.txt", "sub"])
        XCTAssertEqual(try names("dir/sub"), ["b.txt"])
        let folder = try XCTUnwrap(try api.entry(at: "dir"))
        try api.uploadFile(named: "new.txt", text: "made elsewhere\n", parentID: folder.id)
        try await Task.sleep(nanoseconds: 1_500_000_000)
        XCTAssertEqual(try names("dir"), ["a.txt", "sub"], "without events the listing is kept for dir_cache_ttl")
        XCTAssertFalse(FileManager.default.fileExists(atPath: try XCTUnwrap(mount).path("dir/new.txt")))

        let started = Date()
        let result = try refresh([try XCTUnwrap(mount).path("dir")])
        print("RefreshCommandTests: boxfs refresh took \(String(format: "%.3f", Date().timeIntervalSince(started))) s")

        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("listed 1 folder(s) again"), result.stdout)
        XCTAssertEqual(try names("dir"), ["a.txt", "new.txt", "sub"])
        XCTAssertEqual(try contents("dir/new.txt"), "made elsewhere\n")
    }

    func testARecursiveRefreshReachesAFileChangedInASubfolder() async throws {
        try await startBoxSim(texts: ["dir/a.txt": "a\n", "dir/sub/b.txt": "b\n"])
        try mountWritable(options: Self.options)
        XCTAssertEqual(try contents("dir/sub/b.txt"), "b\n")
        XCTAssertEqual(try names("dir"), ["a.txt", "sub"])
        let file = try XCTUnwrap(try api.entry(at: "dir/sub/b.txt"))
        try api.uploadVersion(of: file.id, data: Data("b, changed elsewhere\n".utf8))

        // From inside the folder, without PATH: `.`; not recursive, so the subfolder keeps its listing.
        let plain = try Shell.bash("cd '\(try XCTUnwrap(mount).path("dir"))' && '\(try MountFixture.locateBinary().path)' refresh")
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertEqual(try contents("dir/sub/b.txt"), "b\n", "a refresh of dir alone leaves dir/sub as it was")

        let result = try refresh([try XCTUnwrap(mount).path("dir"), "--recursive"])

        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("listed 2 folder(s) again"), result.stdout)
        XCTAssertEqual(try contents("dir/sub/b.txt"), "b, changed elsewhere\n")
        XCTAssertEqual(try succeed(["stat", "-c", "%s", try XCTUnwrap(mount).path("dir/sub/b.txt")]), "21\n")
    }

    func testARefreshOfAFileListsItsFolderAgain() async throws {
        try await startBoxSim(texts: ["a.txt": "a\n"])
        try mountWritable(options: Self.options)
        XCTAssertEqual(try names(""), ["a.txt"])
        try api.uploadFile(named: "b.txt", text: "b\n")
        XCTAssertEqual(try names(""), ["a.txt"])

        let result = try refresh([try XCTUnwrap(mount).path("a.txt")])

        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try names(""), ["a.txt", "b.txt"])
    }

    func testARefreshOutsideAMountOrOfAMissingPathFailsWithOneLine() async throws {
        try await startBoxSim(texts: ["dir/a.txt": "a\n"])
        try mountWritable(options: Self.options)
        let outside = try makeTemporaryDirectory()

        let notMounted = try refresh([outside.path])
        XCTAssertEqual(notMounted.status, 1)
        XCTAssertTrue(notMounted.stderr.hasPrefix("boxfs refresh: \(outside.path) is not in a boxfs mount"), notMounted.stderr)
        XCTAssertEqual(notMounted.stderr.split(separator: "\n").count, 1, notMounted.stderr)

        let missing = try refresh([try XCTUnwrap(mount).path("no-such-folder")])
        XCTAssertEqual(missing.status, 1)
        XCTAssertEqual(missing.stderr, "boxfs refresh: \(try XCTUnwrap(mount).path("no-such-folder")): No such file or directory\n")
    }
}
