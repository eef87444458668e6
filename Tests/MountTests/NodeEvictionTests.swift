import BoxTestSupport
import Foundation
import XCTest

/// Nodes follow the working set: past `node_cache_entries` the kernel is asked to forget the files it looked up
/// least recently, so a walk of a tree larger than the budget leaves about the budget's worth of nodes, and what
/// a process uses (its working folder, an open file, a file waiting for upload, files being written) stays right.
final class NodeEvictionTests: WriteTestCase {
    static let budget = 60
    static let folders = 10
    static let files = 40

    /// `folders` folders of `files` files each, every file's text its own (and of its own size).
    static var texts: [String: String] {
        var texts: [String: String] = [:]
        for folder in 0..<folders {
            for file in 0..<files {
                let path = String(format: "d%02d/f%03d.txt", folder, file)
                texts[path] = String(repeating: "\(path) ", count: 1 + (folder + file) % 7) + "\n"
            }
        }
        return texts
    }

    func mountTree(options: [String] = []) async throws -> MountFixture {
        try await startAndMount(texts: Self.texts, options: ["node_cache_entries=\(Self.budget)"] + options)
    }

    func nodes(_ mount: MountFixture) throws -> Int {
        try XCTUnwrap((try statusJSON(mount)["nodes"] as? NSNumber)?.intValue, "no nodes in the status")
    }

    /// Waits until the nodes are within the budget, and answers them.
    @discardableResult
    func waitForNodesWithinBudget(_ mount: MountFixture) async throws -> Int {
        do {
            return try await Poll.until("the nodes to come back within \(Self.budget)", timeout: 20) {
                let nodes = try self.nodes(mount)
                return nodes <= Self.budget ? nodes : nil
            }
        } catch {
            XCTFail("nodes: \(try nodes(mount)), budget \(Self.budget)")
            throw error
        }
    }

    /// `find` over the mount, `stat`ing every file (a look-up of each name); answers how many files it saw.
    @discardableResult
    func walk(_ mount: MountFixture) throws -> Int {
        try succeed(["find", mount.mountpoint.path, "-type", "f", "-size", "-2000k"]).split(separator: "\n").count
    }

    /// Python that walks the mount (`walk`) and then waits until `boxfs status` shows the nodes within the budget,
    /// run in the mount with `sys.argv[2]` the boxfs binary.
    static let walkAndWaitForEviction = """
        import json, subprocess, time
        def walk():
            subprocess.run(["find", sys.argv[1], "-type", "f", "-size", "-2000k"], check=True, stdout=subprocess.DEVNULL)
        def nodes():
            status = subprocess.run([sys.argv[2], "status", sys.argv[1], "--json"], check=True, capture_output=True)
            return json.loads(status.stdout)["nodes"]
        def walk_and_wait():
            walk()
            deadline = time.time() + 20
            while nodes() > \(budget) and time.time() < deadline:
                time.sleep(0.1)

        """

    func runPython(_ script: String, in mount: MountFixture) throws -> [String: Any] {
        let result = try Shell.run(["python3", "-c", "import os, sys\nos.chdir(sys.argv[1])\n" + script,
                                    mount.mountpoint.path, try MountFixture.locateBinary().path])
        XCTAssertEqual(result.status, 0, "python failed: \(result.stderr)")
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
                             result.stdout)
    }

    func testAWalkOfMoreFilesThanTheBudgetLeavesAboutTheBudgetAndEveryFileReadsBack() async throws {
        let mount = try await mountTree()
        XCTAssertEqual(try walk(mount), Self.folders * Self.files)
        try await waitForNodesWithinBudget(mount)

        // Every file, its name asked for again (evicted or not), reads back byte-exact.
        for (path, text) in Self.texts.sorted(by: { $0.key < $1.key }) {
            XCTAssertEqual(try String(contentsOfFile: mount.path(path), encoding: .utf8), text, path)
        }
        let nodes = try await waitForNodesWithinBudget(mount)
        XCTAssertGreaterThan(nodes, Self.budget / 2, "the least recently used go, not every node")
        XCTAssertEqual(try walk(mount), Self.folders * Self.files, "a second walk sees every file")
    }

    func testAWorkingFolderWhoseFilesWereEvictedStillWorks() async throws {
        let mount = try await mountTree()
        // d00's files are looked up first, so they are the least recently used when the walk passes the budget.
        let script = Self.walkAndWaitForEviction + """
            os.chdir("d00")
            before = {name: os.stat(name).st_size for name in os.listdir(".")}
            walk_and_wait()
            print(json.dumps({"cwd": os.getcwd(), "pwd": subprocess.run(["pwd", "-P"], capture_output=True, text=True).stdout,
                              "sizes": {name: os.stat(name).st_size for name in os.listdir(".")}, "before": before,
                              "text": open("f001.txt").read(), "nodes": nodes()}))
            """
        let result = try runPython(script, in: mount)
        XCTAssertLessThanOrEqual(result["nodes"] as? Int ?? .max, Self.budget)
        XCTAssertEqual(result["cwd"] as? String, mount.path("d00"), "getcwd still names the working folder")
        XCTAssertEqual(result["pwd"] as? String, mount.path("d00") + "\n")
        XCTAssertEqual(result["sizes"] as? [String: Int], result["before"] as? [String: Int])
        XCTAssertEqual((result["sizes"] as? [String: Int])?.count, Self.files)
        XCTAssertEqual(result["text"] as? String, Self.texts["d00/f001.txt"], "a relative open reads the file")
    }

    func testAnOpenFileAndAFileWaitingForUploadKeepTheirNamesAndContent() async throws {
        let mount = try await mountTree(options: ["write_back_delay=20"])
        let script = Self.walkAndWaitForEviction + """
            fd = os.open("d00/f001.txt", os.O_RDONLY)
            with open("d00/new.txt", "w") as new:
                new.write("written here\\n")
            with open("d00/f002.txt", "a") as changed:
                changed.write("appended\\n")
            inodes = {name: os.stat("d00/" + name).st_ino for name in ("f001.txt", "new.txt", "f002.txt")}
            walk_and_wait()
            print(json.dumps({
                "link": os.readlink("/proc/self/fd/%d" % fd), "open_text": os.pread(fd, 4096, 0).decode(),
                "same_inodes": {name: os.stat("d00/" + name).st_ino == inode for name, inode in inodes.items()},
                "new": open("d00/new.txt").read(), "changed": open("d00/f002.txt").read(), "nodes": nodes()}))
            os.close(fd)
            """
        let result = try runPython(script, in: mount)
        XCTAssertLessThanOrEqual(result["nodes"] as? Int ?? .max, Self.budget)
        XCTAssertEqual(result["link"] as? String, mount.path("d00/f001.txt"), "the open file's name stays known")
        XCTAssertEqual(result["open_text"] as? String, Self.texts["d00/f001.txt"])
        XCTAssertEqual(result["same_inodes"] as? [String: Bool], ["f001.txt": true, "new.txt": true, "f002.txt": true])
        XCTAssertEqual(result["new"] as? String, "written here\n")
        XCTAssertEqual(result["changed"] as? String, (Self.texts["d00/f002.txt"] ?? "") + "appended\n")
        XCTAssertEqual((try statusJSON(mount)["uploads"] as? [[String: Any]])?.count, 2, "both still wait for upload")

        // They reach Box as written.
        try succeed([try MountFixture.locateBinary().path, "retry", mount.mountpoint.path])
        try await waitForBox("d00/new.txt", text: "written here\n")
        try await waitForBox("d00/f002.txt", text: (Self.texts["d00/f002.txt"] ?? "") + "appended\n")
    }

    func testAppendsRacingWalksPastTheBudgetLoseNothing() async throws {
        let mount = try await mountTree()
        let targets = (0..<4).map { String(format: "d%02d/f%03d.txt", $0 * 3, 5 + $0) }
        // Each writer appends a line 60 times (open, write, close), while walks keep the nodes past the budget.
        let script = Self.walkAndWaitForEviction + """
            import threading
            targets = \(targets)
            def append(path):
                for line in range(60):
                    with open(path, "a") as target:
                        target.write("line %d\\n" % line)
            writers = [threading.Thread(target=append, args=(path,)) for path in targets]
            for writer in writers: writer.start()
            walks = 0
            while any(writer.is_alive() for writer in writers) or walks < 2:
                walk()
                walks += 1
            for writer in writers: writer.join()
            walk_and_wait()
            print(json.dumps({"walks": walks, "nodes": nodes(), "texts": {path: open(path).read() for path in targets}}))
            """
        let result = try runPython(script, in: mount)
        XCTAssertLessThanOrEqual(result["nodes"] as? Int ?? .max, Self.budget)
        let appended = (0..<60).map { "line \($0)\n" }.joined()
        let expected = Dictionary(uniqueKeysWithValues: targets.map { ($0, (Self.texts[$0] ?? "") + appended) })
        XCTAssertEqual(result["texts"] as? [String: String], expected, "through the mount")
        try await Poll.until("every upload to land", timeout: 60) {
            (try self.statusJSON(mount)["pending"] as? NSNumber)?.intValue == 0 ? true : nil
        }
        for (path, text) in expected { try await waitForBox(path, text: text) }
        for (path, text) in Self.texts where expected[path] == nil {
            XCTAssertEqual(try String(contentsOfFile: mount.path(path), encoding: .utf8), text, path)
        }
    }
}
