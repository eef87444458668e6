import BoxTestSupport
import Foundation
import XCTest

/// `boxfs watch [PATH] [--json]` prints the changes Box reports below PATH as they arrive, fed by the events the
/// mount already follows (docs/SEMANTICS.md "Following changes: boxfs watch").
final class WatchTests: WriteTestCase {
    /// A running `boxfs watch`, its output written to files the test reads as it goes.
    final class Watcher {
        let process = Process()
        let out: URL
        let err: URL

        init(_ arguments: [String], in directory: String, files: URL) throws {
            out = files.appendingPathComponent("watch-\(UUID().uuidString).out")
            err = files.appendingPathComponent("watch-\(UUID().uuidString).err")
            FileManager.default.createFile(atPath: out.path, contents: nil)
            FileManager.default.createFile(atPath: err.path, contents: nil)
            process.executableURL = try MountFixture.locateBinary()
            process.arguments = ["watch"] + arguments
            process.currentDirectoryURL = URL(fileURLWithPath: directory)
            process.standardOutput = try FileHandle(forWritingTo: out)
            process.standardError = try FileHandle(forWritingTo: err)
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }

        var lines: [String] {
            ((try? String(contentsOf: out, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }

        var stderr: String { (try? String(contentsOf: err, encoding: .utf8)) ?? "" }

        /// Waits until the output has `count` lines; answers them.
        @discardableResult
        func waitForLines(_ count: Int, _ what: String, timeout: Double = 8) async throws -> [String] {
            try await Poll.until("\(what) (lines so far: \(lines), stderr: \(stderr))", timeout: timeout, interval: 0.1) {
                self.lines.count >= count ? self.lines : nil
            }
        }

        /// SIGTERM, then the exit status (killed after 10 s).
        func stop() -> Int32 {
            if process.isRunning { process.terminate() }
            return waitForExit()
        }

        func waitForExit(timeout: Double = 10) -> Int32 {
            let deadline = Date().addingTimeInterval(timeout)
            while process.isRunning, Date() < deadline { usleep(20_000) }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                return -1
            }
            return process.terminationStatus
        }

        deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    }

    private var watchers: [Watcher] = []

    override func tearDown() async throws {
        for watcher in watchers { _ = watcher.stop() }
        watchers = []
        try await super.tearDown()
    }

    func watch(_ arguments: [String], in directory: String) throws -> Watcher {
        let watcher = try Watcher(arguments, in: directory, files: try makeTemporaryDirectory("boxfs-watch"))
        watchers.append(watcher)
        return watcher
    }

    /// boxsim with `Projects/` (a file and a subfolder) and `Other/`, a short long poll, and a mount that has
    /// listed `Projects` and `Projects/sub` and follows Box's events.
    func startProjects() async throws -> MountFixture {
        try await startBoxSim(texts: ["Projects/a.txt": "a\n", "Projects/sub/s.txt": "s\n", "Other/o.txt": "o\n"])
        try api.setLongPollTimeout(5)
        let fixture = try mountWritable()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: fixture.path("Projects")).sorted(), ["a.txt", "sub"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: fixture.path("Projects/sub")), ["s.txt"])
        try await Poll.until("the mount to follow Box's events", timeout: 10, interval: 0.1) {
            try self.succeed([try MountFixture.locateBinary().path, "status", fixture.mountpoint.path])
                .contains("following Box's events") ? true : nil
        }
        return fixture
    }

    func fields(_ line: String) -> [String] { line.components(separatedBy: "\t") }

    /// Each change below PATH (the current folder here) is one line, in the order made: created, modified, renamed
    /// (with the old path), moved, trashed; a change outside PATH is not printed; who made it is the event's
    /// `created_by`. Each change is made once the previous one is printed (boxsim renders an event's item as it
    /// is when the event is fetched, so a later rename would show in an earlier event).
    func testChangesBelowThePathArePrintedOnceEachInOrderAndNothingOutsideIt() async throws {
        let fixture = try await startProjects()
        let user = try api.call("GET", "/2.0/users/me")
        let login = try XCTUnwrap(user["login"] as? String), name = try XCTUnwrap(user["name"] as? String)
        let projects = try XCTUnwrap(try api.entry(at: "Projects")), sub = try XCTUnwrap(try api.entry(at: "Projects/sub"))
        let other = try XCTUnwrap(try api.entry(at: "Other"))
        let root = fixture.mountpoint.path
        let watcher = try watch([], in: fixture.path("Projects"))
        try await Task.sleep(nanoseconds: 500_000_000)  // the watch file is open

        let made = try api.uploadFile(named: "new.txt", text: "one\n", parentID: projects.id)
        try await watcher.waitForLines(1, "the new file")
        _ = try api.uploadVersion(of: made.id, data: Data("two\n".utf8))
        try await watcher.waitForLines(2, "the new version")
        try api.renameFile(made.id, to: "renamed.txt")
        try await watcher.waitForLines(3, "the rename")
        try api.uploadFile(named: "elsewhere.txt", text: "x\n", parentID: other.id)
        try api.moveFile(made.id, toFolder: sub.id)
        try await watcher.waitForLines(4, "the move")
        try api.deleteFile(made.id)
        try await watcher.waitForLines(5, "the trash")
        try await Task.sleep(nanoseconds: 3_000_000_000)  // anything else would have come by now

        let lines = watcher.lines
        XCTAssertEqual(lines.map { fields($0)[1] }, ["created", "modified", "renamed", "moved", "trashed"], "\(lines)")
        guard lines.count == 5, lines.allSatisfy({ fields($0).count >= 4 }) else { return XCTFail("\(lines)") }
        XCTAssertEqual(lines.map { fields($0)[2] }, [
            "\(root)/Projects/new.txt", "\(root)/Projects/new.txt", "\(root)/Projects/renamed.txt",
            "\(root)/Projects/sub/renamed.txt", "\(root)/Projects/sub/renamed.txt",
        ], "\(lines)")
        XCTAssertEqual(fields(lines[2]).dropFirst(4), ["\(root)/Projects/new.txt"], "a rename says the old path: \(lines[2])")
        XCTAssertEqual(fields(lines[3]).dropFirst(4), ["\(root)/Projects/renamed.txt"], "a move too: \(lines[3])")
        XCTAssertEqual(fields(lines[0]).count, 4, "no old path for a new file: \(lines[0])")
        for line in lines {
            XCTAssertEqual(fields(line)[3], "\(name) <\(login)>", line)
            XCTAssertNotNil(ISO8601DateFormatter().date(from: fields(line)[0]), line)
        }
        XCTAssertFalse(lines.contains { $0.contains("elsewhere.txt") }, "a change outside PATH is not shown: \(lines)")
        XCTAssertEqual(watcher.stop(), 0, "SIGTERM ends the watch with status 0: \(watcher.stderr)")
        XCTAssertEqual(watcher.stderr, "")
    }

    /// `--json`: one object per line, with the same fields plus the Box item id and the event id.
    func testJSONLinesCarryTheItemAndEventIDs() async throws {
        let fixture = try await startProjects()
        let projects = try XCTUnwrap(try api.entry(at: "Projects"))
        let watcher = try watch(["--json", fixture.path("Projects")], in: "/")
        try await Task.sleep(nanoseconds: 500_000_000)

        let made = try api.uploadFile(named: "j.txt", text: "j\n", parentID: projects.id)
        try await watcher.waitForLines(1, "the new file")
        try api.renameFile(made.id, to: "k.txt")
        let lines = try await watcher.waitForLines(2, "the rename")

        let objects = try lines.map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], $0) }
        XCTAssertEqual(objects.map { $0["kind"] as? String }, ["created", "renamed"])
        XCTAssertEqual(objects.map { $0["path"] as? String }, [fixture.path("Projects/j.txt"), fixture.path("Projects/k.txt")])
        XCTAssertTrue(objects[0]["old_path"] is NSNull)
        XCTAssertEqual(objects[1]["old_path"] as? String, fixture.path("Projects/j.txt"))
        for object in objects {
            XCTAssertEqual(object["item_id"] as? String, made.id)
            XCTAssertEqual(object["item_type"] as? String, "file")
            XCTAssertFalse((object["event_id"] as? String ?? "").isEmpty, "\(object)")
            XCTAssertEqual(object["by_login"] as? String, try api.call("GET", "/2.0/users/me")["login"] as? String)
            XCTAssertNotNil((object["at"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) }, "\(object)")
            XCTAssertEqual(object["this_mount"] as? Bool, false)
        }
        XCTAssertEqual(objects.map { $0["event_type"] as? String }, ["ITEM_UPLOAD", "ITEM_RENAME"])
    }

    /// boxsim sends every event twice (`duplicate_rate` 1, as Box may): each change is printed once.
    func testAnEventBoxSendsTwiceIsPrintedOnce() async throws {
        let fixture = try await startProjects()
        let projects = try XCTUnwrap(try api.entry(at: "Projects"))
        let watcher = try watch(["--json"], in: fixture.path("Projects"))
        try await Task.sleep(nanoseconds: 500_000_000)
        try api.setEventStreamFaults(duplicateRate: 1)
        let sim = try XCTUnwrap(boxsim)
        let before = try lastSequence(sim)

        try api.uploadFile(named: "twice.txt", text: "t\n", parentID: projects.id)
        try await watcher.waitForLines(1, "the new file")
        // The copy comes with the next page, which the owed event asks for at once.
        try await Poll.until("boxsim to send the event again", timeout: 10, interval: 0.2) {
            try sim.requestLog().after(before).filter { $0.path == "/2.0/events" && $0.method == "GET" }.count >= 2 ? true : nil
        }
        try api.setEventStreamFaults(duplicateRate: 0)
        try api.uploadFile(named: "after.txt", text: "a\n", parentID: projects.id)
        try await watcher.waitForLines(2, "the next file")
        try await Task.sleep(nanoseconds: 2_500_000_000)

        let paths = watcher.lines.compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["path"] as? String
        }
        XCTAssertEqual(paths, [fixture.path("Projects/twice.txt"), fixture.path("Projects/after.txt")], "\(watcher.lines)")
    }

    /// The mount's own change comes back on the stream: shown, and marked as this mount's.
    func testTheMountsOwnChangeIsShownAndMarked() async throws {
        let fixture = try await startProjects()
        let watcher = try watch(["--json", fixture.path("Projects")], in: "/")
        try await Task.sleep(nanoseconds: 500_000_000)

        try Data("mine\n".utf8).write(to: URL(fileURLWithPath: fixture.path("Projects/own.txt")))
        let lines = try await watcher.waitForLines(1, "the mount's own new file", timeout: 15)

        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any], lines[0])
        XCTAssertEqual(object["path"] as? String, fixture.path("Projects/own.txt"))
        XCTAssertEqual(object["kind"] as? String, "created")
        XCTAssertEqual(object["this_mount"] as? Bool, true, lines[0])
    }

    /// A PATH that is not in a boxfs mount, or does not exist: one line on stderr, status 2.
    func testAPathOutsideABoxfsMountIsRefusedWithStatus2() throws {
        let outside = try makeTemporaryDirectory("not-boxfs")
        for (path, says) in [(outside.path, "is not in a boxfs mount"), (outside.path + "/missing", "No such file or directory")] {
            let result = try Shell.run([try MountFixture.locateBinary().path, "watch", path], timeout: 20)
            XCTAssertEqual(result.status, 2, "\(path): \(result.stdout) \(result.stderr)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
            XCTAssertTrue(result.stderr.hasPrefix("boxfs watch: ") && result.stderr.contains(says), result.stderr)
            XCTAssertEqual(result.stdout, "")
        }
    }

    /// The mount going away ends the watch with one line on stderr and status 1.
    func testTheMountGoingAwayIsSaidInOneLine() async throws {
        let fixture = try await startProjects()
        let watcher = try watch([fixture.path("Projects")], in: "/")
        try await Task.sleep(nanoseconds: 500_000_000)
        for pid in MountFixture.daemonPIDs(for: fixture.mountpoint.path) { kill(pid, SIGTERM) }

        XCTAssertEqual(watcher.waitForExit(timeout: 20), 1, watcher.stderr)
        XCTAssertEqual(watcher.stderr.split(separator: "\n").count, 1, watcher.stderr)
        XCTAssertTrue(watcher.stderr.contains("the mount went away"), watcher.stderr)
    }
}
