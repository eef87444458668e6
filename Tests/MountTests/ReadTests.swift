import BoxTestSupport
import Foundation
import XCTest

/// Names, sizes, times and bytes seen through a real mount match what was seeded into boxsim.
final class ReadTests: MountTestCase {
    static let texts = [
        "notes/todo.txt": "buy milk\nwrite boxfs\n",
        "notes/deep/er/still.txt": "the needle is here\n",
        "README.md": "# hello\nneedle in the root\n",
        "empty.txt": "",
        "names/with space.txt": "spaces work\n",
        "names/ünïcødé.txt": "unicode works\n",
    ]

    func testListingShowsSeededNamesAndSizes() async throws {
        let seed = try SeedTree.make(texts: Self.texts, largeFiles: ["media/big.bin": 3_000_000])
        let mount = try await mountBoxSim(seed: seed)

        let found = try succeed(["find", mount.mountpoint.path, "-type", "f", "-printf", "%P %s\n"])
        var expected = Self.texts.map { "\($0.key) \($0.value.utf8.count)" }
        expected.append("media/big.bin 3000000")
        XCTAssertEqual(found.split(separator: "\n").map(String.init).sorted(), expected.sorted())

        let folders = try succeed(["find", mount.mountpoint.path, "-mindepth", "1", "-type", "d", "-printf", "%P\n"])
        XCTAssertEqual(folders.split(separator: "\n").sorted(), ["media", "names", "notes", "notes/deep", "notes/deep/er"])

        let long = try succeed(["ls", "-l", mount.path("notes")])
        XCTAssertTrue(long.contains("todo.txt"), long)
        XCTAssertTrue(long.contains(" 21 "), "ls -l shows the size of todo.txt: \(long)")
    }

    func testModificationTimeComesFromBox() async throws {
        let seed = try SeedTree.make(texts: ["dated.txt": "old content\n"])
        let stamp = "202103041506.07"  // 2021-03-04 15:06:07 local time
        try succeed(["touch", "-m", "-t", stamp, seed.appendingPathComponent("dated.txt").path])
        let expected = try succeed(["stat", "-c", "%Y", seed.appendingPathComponent("dated.txt").path])
        let mount = try await mountBoxSim(seed: seed)
        let seen = try succeed(["stat", "-c", "%Y %s %F", mount.path("dated.txt")])
        XCTAssertEqual(seen.trimmingCharacters(in: .whitespacesAndNewlines), "\(expected.trimmingCharacters(in: .whitespacesAndNewlines)) 12 regular file")
    }

    func testCatCpAndGrepSeeTheSeededBytes() async throws {
        let seed = try SeedTree.make(texts: Self.texts, largeFiles: ["media/big.bin": 24 << 20])
        let mount = try await mountBoxSim(seed: seed)

        for (path, text) in Self.texts {
            XCTAssertEqual(try succeed(["cat", mount.path(path)]), text, path)
        }
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("copy-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: copy) }
        try succeed(["cp", mount.path("media/big.bin"), copy.path])
        XCTAssertEqual(try sha1(copy.path), try sha1(seed.appendingPathComponent("media/big.bin").path))

        let matches = try succeed(["grep", "-rl", "needle", mount.mountpoint.path])
        XCTAssertEqual(
            matches.split(separator: "\n").map { $0.replacingOccurrences(of: mount.mountpoint.path + "/", with: "") }.sorted(),
            ["README.md", "notes/deep/er/still.txt"])
    }

    func testHeadOfALargeFileMovesOnlyAFewMiB() async throws {
        let size = 64 << 20
        let seed = try SeedTree.make(texts: [:], largeFiles: ["large.bin": size])
        let mount = try await mountBoxSim(seed: seed)
        let sim = try XCTUnwrap(boxsim)
        _ = try succeed(["stat", mount.path("large.bin")])
        let before = try lastSequence(sim)

        let head = try Shell.bash("head -c 100 '\(mount.path("large.bin"))' | sha1sum")
        let expected = try Shell.bash("head -c 100 '\(seed.appendingPathComponent("large.bin").path)' | sha1sum")
        XCTAssertEqual(head.stdout, expected.stdout)

        let sent = try downloadedBytes(after: before, in: sim)
        XCTAssertGreaterThan(sent, 0)
        XCTAssertLessThan(sent, 4 << 20, "head -c 100 of a 64 MiB file made boxsim send \(sent) bytes")
        let downloads = try sim.requestLog().filter { $0.seq > before && $0.path.hasPrefix("/dl/") }
        XCTAssertTrue(downloads.allSatisfy { $0.range != nil }, "every download asks for a range")
        XCTAssertTrue(downloads.allSatisfy { !$0.authorization }, "the token is never sent to the download host")
    }

    func testRandomReadsFetchOnlyNearTheirOffsets() async throws {
        let seed = try SeedTree.make(texts: [:], largeFiles: ["large.bin": 48 << 20])
        let mount = try await mountBoxSim(seed: seed)
        let sim = try XCTUnwrap(boxsim)
        let local = try FileHandle(forReadingFrom: seed.appendingPathComponent("large.bin"))
        let remote = try XCTUnwrap(FileHandle(forReadingAtPath: mount.path("large.bin")))
        defer { try? local.close(); try? remote.close() }
        let before = try lastSequence(sim)
        for offset: UInt64 in [40 << 20, 7 << 20, 23 << 20 + 12345] {
            try local.seek(toOffset: offset)
            try remote.seek(toOffset: offset)
            XCTAssertEqual(try remote.read(upToCount: 4096), try local.read(upToCount: 4096), "bytes at \(offset)")
        }
        let sent = try downloadedBytes(after: before, in: sim)
        XCTAssertLessThan(sent, 3 * (4 << 20), "three 4 KiB reads made boxsim send \(sent) bytes")
    }

    func testSubfolderSourceMountsThatFolder() async throws {
        let seed = try SeedTree.make(texts: Self.texts)
        let mount = try await mountBoxSim(seed: seed, source: "box:/notes")
        let names = try succeed(["ls", "-A", mount.mountpoint.path])
        XCTAssertEqual(names.split(separator: "\n").sorted(), ["deep", "todo.txt"])
        XCTAssertEqual(try succeed(["cat", mount.path("deep/er/still.txt")]), "the needle is here\n")
    }

    func testFolderOfManyEntriesIsListedInPagesOfAThousand() async throws {
        var texts: [String: String] = [:]
        for index in 0..<2_345 { texts["many/file-\(index).txt"] = "\(index)\n" }
        let seed = try SeedTree.make(texts: texts)
        let mount = try await mountBoxSim(seed: seed)
        let sim = try XCTUnwrap(boxsim)
        _ = try succeed(["stat", mount.path("many")])  // lists the root, so only the folder's own pages follow
        let before = try lastSequence(sim)
        let listing = try succeed(["ls", "-l", mount.path("many")])
        XCTAssertEqual(listing.split(separator: "\n").filter { $0.hasPrefix("-") }.count, 2_345)
        let pages = try sim.requestLog().filter { $0.seq > before && $0.path.hasSuffix("/items") }
        XCTAssertEqual(pages.count, 3, "2,345 entries take three listing pages of up to 1,000")
        // Asked for gzip, as Box serves JSON: the first page on the wire against the same page uncompressed.
        let first = try XCTUnwrap(pages.min { $0.seq < $1.seq })
        let url = "\(sim.baseURL)\(first.path)?\(first.query ?? "")"
        let plain = try Shell.run(["curl", "-sf", "-o", "/dev/null", "-w", "%{size_download}",
                                   "-H", "Authorization: Bearer \(sim.developerToken)", url])
        let plainBytes = try XCTUnwrap(Int64(plain.stdout), plain.stderr)
        XCTAssertLessThan(first.bytesSent * 3, plainBytes, "a page of 1,000 entries went compressed")
    }

    func testAWalkInListingOrderListsTheNextSubFoldersAheadAndEachFolderOnce() async throws {
        var texts: [String: String] = [:]
        for index in 1...9 { texts["tree/d\(index)/f\(index).txt"] = "\(index)\n" }
        let mount = try await mountBoxSim(seed: try SeedTree.make(texts: texts), options: ["events=off"])
        let sim = try XCTUnwrap(boxsim)
        let api = BoxSimAPI(sim)
        var ids: [String: String] = [:]
        for index in 1...9 { ids["d\(index)"] = try XCTUnwrap(try api.entry(at: "tree/d\(index)")).id }
        _ = try succeed(["ls", mount.path("tree")])
        let before = try lastSequence(sim)
        func listed() throws -> [String] {
            let paths = try sim.requestLog().after(before).filter { $0.path.hasSuffix("/items") }.map(\.path)
            return ids.filter { paths.contains("/2.0/folders/\($0.value)/items") }.map(\.key).sorted()
        }

        // Two sub-folders opened in listing order make a walk: the next four are listed before anyone opens them.
        _ = try succeed(["ls", mount.path("tree/d1")])
        _ = try succeed(["ls", mount.path("tree/d2")])
        try await Poll.until("d3 to d6 listed ahead", timeout: 10, interval: 0.05) {
            try listed() == ["d1", "d2", "d3", "d4", "d5", "d6"] ? true : nil
        }
        XCTAssertEqual(try listed(), ["d1", "d2", "d3", "d4", "d5", "d6"], "no more than four ahead")

        // The rest of the walk: every file shows, and no folder was listed twice.
        let walked = try succeed(["ls", "-R", mount.path("tree")])
        for index in 1...9 { XCTAssertTrue(walked.contains("f\(index).txt"), walked) }
        let listings = try sim.requestLog().after(before).filter { $0.path.hasSuffix("/items") }
        XCTAssertEqual(listings.count, 9, "each sub-folder listed once:\n\(listings.summary)")
    }

    func testStatfsReportsTheAccountsSpace() async throws {
        let seed = try SeedTree.make(texts: [:], largeFiles: ["a.bin": 8 << 20])
        let mount = try await mountBoxSim(seed: seed)
        let sim = try XCTUnwrap(boxsim)
        let user = try Shell.run([
            "curl", "-sf", "-H", "Authorization: Bearer \(sim.developerToken)", "\(sim.baseURL)/2.0/users/me",
        ])
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(user.stdout.utf8)) as? [String: Any])
        let amount = try XCTUnwrap((json["space_amount"] as? NSNumber)?.int64Value)
        let used = try XCTUnwrap((json["space_used"] as? NSNumber)?.int64Value)
        XCTAssertEqual(used, 8 << 20)
        let df = try succeed(["stat", "-f", "-c", "%S %b %f", mount.mountpoint.path]).split(separator: " ").compactMap { Int64($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        XCTAssertEqual(df.count, 3)
        let (blockSize, blocks, free) = (df[0], df[1], df[2])
        XCTAssertEqual(blocks, amount / blockSize, "total size is the account's space_amount")
        XCTAssertEqual(free, blocks - used / blockSize, "free space is space_amount - space_used")
    }
}
