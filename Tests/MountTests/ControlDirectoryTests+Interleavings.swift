import BoxTestSupport
import Foundation
import XCTest

/// The control directory meeting other work at the same time: many readers of one view, a version read while
/// the file is being written, a stalled answer.
extension ControlDirectoryTests {
    func testManyAtOnceCostOneSearchAndOneVersionList() async throws {
        let mount = try await startAndMount(texts: ["f.txt": "zebra one\n"])
        let api = try self.api
        try api.uploadVersion(of: try XCTUnwrap(try api.entry(at: "f.txt")).id, data: Data("zebra two\n".utf8))
        let before = try lastSequence(try XCTUnwrap(boxsim))
        let script = """
            for i in $(seq 16); do
              ls "$MNT/.box/search/zebra" > "$OUT/s$i" & ls "$MNT/.box/versions/f.txt" > "$OUT/v$i" &
            done
            wait
            """
        let out = try makeTemporaryDirectory("listings").path
        let result = try Shell.bash(script, environment: ["MNT": mount.mountpoint.path, "OUT": out])
        XCTAssertEqual(result.status, 0, result.stderr)
        for index in 1...16 {
            XCTAssertEqual(try String(contentsOfFile: "\(out)/s\(index)", encoding: .utf8), "f.txt\n")
            XCTAssertEqual(try String(contentsOfFile: "\(out)/v\(index)", encoding: .utf8).split(separator: "\n").count, 1)
        }
        let log = try requests().after(before)
        XCTAssertEqual(log.filter { $0.path == "/2.0/search" }.count, 1, log.summary)
        XCTAssertEqual(log.filter { $0.path.hasSuffix("/versions") }.count, 1, log.summary)
    }

    func testAVersionReadsItsOwnBytesWhileTheFileIsBeingWritten() async throws {
        try await startBoxSim(texts: ["f.txt": "the original\n"])
        let api = try self.api
        try api.uploadVersion(of: try XCTUnwrap(try api.entry(at: "f.txt")).id, data: Data("the second\n".utf8))
        let mount = try mountWritable(options: ["write_back_delay=60"])
        let versions = mount.path(".box/versions/f.txt")
        let name = try succeed(["ls", versions]).trimmingCharacters(in: .newlines)
        // A handle on the version is open, then the file gets local content that Box does not have yet. (Root only:
        // the kernel's pages are dropped so that the reads after the write reach the mount.)
        try XCTSkipUnless(getuid() == 0, "needs root to drop the kernel's page cache")
        let output = try python("""
            version = open(".box/versions/f.txt/" + \(String(reflecting: name)), "rb")
            first = version.read(4)
            with open("f.txt", "w") as f: f.write("a local change, not sent yet\\n")
            print(open("f.txt").read(), end="")
            with open("/proc/sys/vm/drop_caches", "w") as caches: caches.write("3")  # the next reads reach the mount
            version.seek(0)
            print((first + version.read()[4:]).decode(), end="")
            print(open(".box/versions/f.txt/" + \(String(reflecting: name))).read(), end="")
            """, in: mount)
        XCTAssertEqual(output, "a local change, not sent yet\nthe original\nthe original\n")
        XCTAssertEqual(try api.text(of: try XCTUnwrap(try api.entry(at: "f.txt")).id), "the second\n", "nothing sent yet")
    }

    func testAStalledAnswerIsGivenUpAndRetried() async throws {
        let mount = try await startAndMount(texts: ["f.txt": "zebra\n"], options: ["stall_timeout=2"])
        let api = try self.api
        try api.stallResponses(pathPrefix: "/2.0/search", count: 1)
        try api.stallResponses(pathPrefix: "/2.0/folders/trash/items", count: 1)
        let started = Date()
        XCTAssertEqual(try succeed(["ls", mount.path(".box/search/zebra")]), "f.txt\n")
        XCTAssertEqual(try succeed(["ls", "-A", mount.path(".box/trash")]), "")
        XCTAssertLessThan(Date().timeIntervalSince(started), 30, "each stall is given up after stall_timeout")
        let log = try requests()
        XCTAssertEqual(log.filter { $0.path == "/2.0/search" }.count, 2, "the stalled one and its retry: \(log.summary)")
    }
}

extension ControlDirectoryTests {
    func testViewsAreKeptAWhileAndARefreshAsksForThemAgain() async throws {
        let mount = try await startAndMount(texts: ["a/zebra.txt": "one\n"], options: ["events=off"])
        let results = mount.path(".box/search/zebra")
        XCTAssertEqual(try succeed(["find", results, "-type", "f"]), results + "/a/zebra.txt\n")
        try api.uploadFile(named: "zebra-two.txt", text: "two\n")
        XCTAssertEqual(try succeed(["find", results, "-type", "f"]), results + "/a/zebra.txt\n", "kept for 30 s")
        let refresh = try Shell.run([try MountFixture.locateBinary().path, "refresh", mount.mountpoint.path])
        XCTAssertEqual(refresh.status, 0, refresh.stderr)
        XCTAssertEqual(try succeed(["find", results, "-type", "f"]).split(separator: "\n").sorted(),
                       [results + "/a/zebra.txt", results + "/zebra-two.txt"].map { Substring($0) })
    }
}

extension ControlDirectoryTests {
    func testAMountOfAFolderSeesOnlyItsOwnTrashAndSearchResults() async throws {
        try await startBoxSim(texts: [
            "docs/in.txt": "zebra inside\n", "docs/sub/gone.txt": "bye\n", "other/out.txt": "zebra outside\n",
            "other/gone-too.txt": "bye\n",
        ])
        let api = try self.api
        try api.deleteFile(try XCTUnwrap(try api.entry(at: "docs/sub/gone.txt")).id)
        try api.deleteFile(try XCTUnwrap(try api.entry(at: "other/gone-too.txt")).id)
        let docs = try XCTUnwrap(try api.entry(at: "docs"))
        let fixture = try MountFixture.mount(try XCTUnwrap(boxsim), source: "box:/docs", options: ["ro"])
        defer { fixture.unmount() }

        let trash = fixture.path(".box/trash")
        XCTAssertEqual(try succeed(["find", trash, "-type", "f"]), trash + "/sub/gone.txt\n")
        let results = fixture.path(".box/search/zebra")
        XCTAssertEqual(try succeed(["find", results, "-type", "f"]), results + "/in.txt\n")
        XCTAssertEqual(try succeed(["cat", results + "/in.txt"]), "zebra inside\n")
        let search = try XCTUnwrap(try requests().last { $0.path == "/2.0/search" })
        XCTAssertTrue(search.query?.contains("ancestor_folder_ids=\(docs.id)") == true, search.query ?? "")
    }
}

extension ControlDirectoryTests {
    func testADeleteMadeElsewhereShowsInTheTrashWithoutWaitingForItsTTL() async throws {
        let mount = try await startAndMount(texts: ["dir/elsewhere.txt": "gone soon\n"])
        let trash = mount.path(".box/trash")
        XCTAssertEqual(try succeed(["ls", "-A", trash]), "")
        let api = try self.api
        try api.deleteFile(try XCTUnwrap(try api.entry(at: "dir/elsewhere.txt")).id)
        // Box's event reaches the mount within about a second; the trash view's 30 s would be far longer.
        try await Poll.until("the trash view to show the file deleted elsewhere", timeout: 10) {
            let found = try Shell.run(["find", trash, "-type", "f"]).stdout
            return found == trash + "/dir/elsewhere.txt\n" ? true : nil
        }
    }
}
