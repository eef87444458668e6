import BoxTestSupport
import Foundation
import XCTest

/// The read-only `user.box.*` extended attributes show what Box says of each item, from the mount's cache
/// (no request reaches Box), and cannot be set (docs/SEMANTICS.md "Extended attributes").
final class XattrTests: WriteTestCase {
    static let fields = "id,sha1,file_version,etag,owned_by,modified_by,shared_link,lock"

    func testEachAttributeIsWhatBoxSaysAndNoRequestReachesBox() async throws {
        let mount = try await startAndMount(texts: ["docs/report.txt": "quarterly\n"], options: ["events=off", "dir_cache_ttl=600"])
        let sim = try XCTUnwrap(boxsim)
        let report = try XCTUnwrap(try api.entry(at: "docs/report.txt"))
        let docs = try XCTUnwrap(try api.entry(at: "docs"))
        let box = try api.call("GET", "/2.0/files/\(report.id)?fields=\(Self.fields)")
        _ = try succeed(["ls", "-l", mount.path("docs")])
        let before = try requests().last?.seq ?? 0

        let file = try attributes(of: mount.path("docs/report.txt"))
        XCTAssertEqual(file, [
            "user.box.id": report.id,
            "user.box.version": try XCTUnwrap((box["file_version"] as? [String: Any])?["id"] as? String),
            "user.box.sha1": try XCTUnwrap(box["sha1"] as? String),
            "user.box.etag": try XCTUnwrap(box["etag"] as? String),
            "user.box.owner": try XCTUnwrap((box["owned_by"] as? [String: Any])?["login"] as? String),
            "user.box.modified_by": try XCTUnwrap((box["modified_by"] as? [String: Any])?["login"] as? String),
            "user.box.url": sim.baseURL + "/file/" + report.id,
        ], "getfattr -d lists exactly the facts the file has (no shared link, no lock)")
        XCTAssertEqual(try value(mount.path("docs/report.txt"), "user.box.sha1"), try sha1(of: "quarterly\n"))
        let folder = try attributes(of: mount.path("docs"))
        XCTAssertEqual(folder["user.box.id"], docs.id)
        XCTAssertEqual(folder["user.box.url"], sim.baseURL + "/folder/" + docs.id)
        XCTAssertNil(folder["user.box.sha1"], "folders have no content hash")
        XCTAssertEqual(try attributes(of: mount.mountpoint.path)["user.box.id"], "0", "the mount's root is Box's folder 0")

        XCTAssertTrue(try fails(["getfattr", "-n", "user.box.shared_link", mount.path("docs/report.txt")])
            .contains("No such attribute"))
        XCTAssertTrue(try fails(["getfattr", "-n", "user.other", mount.path("docs/report.txt")]).contains("No such attribute"))
        for name in ["security.selinux", "security.capability", "system.posix_acl_access", "trusted.x"] {
            XCTAssertTrue(try fails(["getfattr", "-n", name, mount.path("docs/report.txt")]).contains("Operation not supported"),
                          name)
        }
        _ = try succeed(["ls", "-l", mount.path("docs")])
        try await Task.sleep(nanoseconds: 300_000_000)
        XCTAssertEqual(try requests().after(before).summary, "", "reading attributes asks Box nothing")
    }

    func testASharedLinkAndALockMadeElsewhereAppearAfterARefresh() async throws {
        let mount = try await startAndMount(texts: ["team/plan.txt": "v1\n"], options: ["events=off", "dir_cache_ttl=600"])
        let sim = try XCTUnwrap(boxsim)
        let team = try XCTUnwrap(try api.entry(at: "team"))
        let plan = try XCTUnwrap(try api.entry(at: "team/plan.txt"))
        XCTAssertNil(try attributes(of: mount.path("team/plan.txt"))["user.box.shared_link"])
        let user = try OtherUserShare.call(sim, "POST", "/_control/users", token: nil,
                                           json: ["name": "Colleague", "kind": "user", "login": "colleague@example.com"])
        let userID = try XCTUnwrap(user["id"] as? String)
        let issued = try OtherUserShare.call(sim, "POST", "/_control/tokens", token: nil, json: ["user_id": userID])
        let colleague = BoxSimAPI(sim, token: try XCTUnwrap(issued["access_token"] as? String))
        _ = try api.call("POST", "/2.0/collaborations", json: [
            "item": ["type": "folder", "id": team.id], "accessible_by": ["type": "user", "id": userID], "role": "editor"])

        let shared = try api.call("PUT", "/2.0/files/\(plan.id)?fields=shared_link", json: ["shared_link": ["access": "open"]])
        let link = try XCTUnwrap((shared["shared_link"] as? [String: Any])?["url"] as? String)
        _ = try colleague.call("PUT", "/2.0/files/\(plan.id)?fields=lock", json: [
            "lock": ["access": "lock", "expires_at": "2031-05-06T07:08:09Z", "is_download_prevented": true]])
        try refresh(mount.path("team"))

        let after = try attributes(of: mount.path("team/plan.txt"))
        XCTAssertEqual(after["user.box.shared_link"], link)
        XCTAssertEqual(after["user.box.lock"],
                       "locked by colleague@example.com, until 2031-05-06T07:08:09Z, download prevented")
        let box = try api.call("GET", "/2.0/files/\(plan.id)?fields=\(Self.fields)")
        XCTAssertEqual(after["user.box.etag"], box["etag"] as? String, "sharing moved the etag, and the mount shows the new one")

        _ = try colleague.call("PUT", "/2.0/files/\(plan.id)?fields=lock", json: ["lock": NSNull()])
        _ = try api.call("PUT", "/2.0/files/\(plan.id)?fields=shared_link", json: ["shared_link": NSNull()])
        try refresh(mount.path("team"))
        let cleared = try attributes(of: mount.path("team/plan.txt"))
        XCTAssertNil(cleared["user.box.lock"])
        XCTAssertNil(cleared["user.box.shared_link"])
    }

    /// While Box holds every answer back (a stalled server) or fails every call, attributes and `boxfs info` still
    /// answer at once, from many readers in parallel: they never wait on Box.
    func testAttributesAnswerAtOnceWhileBoxStallsOrFails() async throws {
        var texts: [String: String] = [:]
        for index in 0..<16 { texts["d/f\(index).txt"] = "\(index)\n" }
        let mount = try await startAndMount(texts: texts, options: ["events=off", "dir_cache_ttl=600"])
        let expected = try (0..<16).map { try XCTUnwrap(try api.entry(at: "d/f\($0).txt")).id }
        _ = try succeed(["ls", "-l", mount.path("d")])
        let binary = try MountFixture.locateBinary().path
        for fault in [["stall": true], ["error_status": 503, "retry_after": 30]] as [[String: Any]] {
            try api.clearFaults()
            _ = try api.addFault(fault)
            let started = Date()
            let ids = try Shell.bash(
                "for i in $(seq 0 15); do echo \"$D/f$i.txt\"; done"
                    + " | xargs -P 8 -I{} sh -c 'v=$(getfattr --only-values -n user.box.id \"$1\") && printf \"%s\\n\" \"$v\"' _ {}",
                environment: ["D": mount.path("d")], timeout: 20)
            XCTAssertEqual(ids.status, 0, "\(fault): \(ids.stderr)")
            let info = try Shell.run([binary, "info", "--json", mount.path("d/f3.txt")], timeout: 20)
            XCTAssertEqual(info.status, 0, "\(fault): \(info.stderr)")
            XCTAssertTrue(info.stdout.contains("\"id\":\"\(expected[3])\""), info.stdout)
            XCTAssertLessThan(Date().timeIntervalSince(started), 5, "\(fault): answered without waiting on Box")
            XCTAssertEqual(Set(ids.stdout.split(separator: "\n").map(String.init)), Set(expected), "\(fault)")
        }
        try api.clearFaults()
    }

    /// With the event stream followed, a link made elsewhere shows without a refresh (its ITEM_SHARED_CREATE event),
    /// and so does its removal.
    func testASharedLinkMadeElsewhereShowsOnceItsEventArrives() async throws {
        let mount = try await startAndMount(texts: ["news.txt": "n\n"], options: ["dir_cache_ttl=600"])
        let news = try XCTUnwrap(try api.entry(at: "news.txt"))
        XCTAssertNil(try attributes(of: mount.path("news.txt"))["user.box.shared_link"])
        let shared = try api.call("PUT", "/2.0/files/\(news.id)?fields=shared_link", json: ["shared_link": ["access": "open"]])
        let link = try XCTUnwrap((shared["shared_link"] as? [String: Any])?["url"] as? String)
        try await waitUntil("the link shows") { try self.attributes(of: mount.path("news.txt"))["user.box.shared_link"] == link }
        _ = try api.call("PUT", "/2.0/files/\(news.id)?fields=shared_link", json: ["shared_link": NSNull()])
        try await waitUntil("the link is gone") { try self.attributes(of: mount.path("news.txt"))["user.box.shared_link"] == nil }
    }

    func testSettingOrRemovingAnyAttributeIsRefused() async throws {
        let mount = try await startAndMount(texts: ["a.txt": "a\n"], options: ["events=off", "dir_cache_ttl=600"])
        let path = mount.path("a.txt")
        let id = try value(path, "user.box.id")
        let before = try requests().last?.seq ?? 0
        XCTAssertTrue(try fails(["setfattr", "-n", "user.box.id", "-v", "1", path]).contains("Operation not permitted"))
        XCTAssertTrue(try fails(["setfattr", "-x", "user.box.sha1", path]).contains("Operation not permitted"))
        XCTAssertTrue(try fails(["setfattr", "-n", "user.box.new", "-v", "1", path]).contains("Operation not permitted"))
        XCTAssertTrue(try fails(["setfattr", "-n", "user.note", "-v", "1", path]).contains("Operation not supported"))
        XCTAssertTrue(try fails(["setfattr", "-x", "user.note", path]).contains("Operation not supported"))
        XCTAssertTrue(try fails(["setfattr", "-n", "security.x", "-v", "1", path]).contains("Operation not supported"))
        XCTAssertEqual(try value(path, "user.box.id"), id)
        XCTAssertNil(try attributes(of: path)["user.note"])
        try await Task.sleep(nanoseconds: 300_000_000)
        XCTAssertEqual(try requests().after(before).summary, "")
    }

    /// A file being written shows no version, SHA-1 or etag (they would describe other content), a new file no Box
    /// facts at all; once the upload lands they describe the new version.
    func testAFileBeingWrittenHasNoContentFactsUntilItsUploadLands() async throws {
        let mount = try await startAndMount(texts: ["old.txt": "one\n"], options: ["events=off", "dir_cache_ttl=600", "write_back_delay=0"])
        let old = try XCTUnwrap(try api.entry(at: "old.txt"))
        let edited = try HeldFile(mount.path("old.txt"), flags: O_WRONLY | O_APPEND)
        try edited.write("two\n")
        let created = try HeldFile(mount.path("new.txt"), flags: O_WRONLY | O_CREAT)
        try created.write("fresh\n")

        let editing = try attributes(of: mount.path("old.txt"))
        XCTAssertEqual(editing["user.box.id"], old.id)
        XCTAssertNotNil(editing["user.box.url"])
        XCTAssertNil(editing["user.box.sha1"])
        XCTAssertNil(editing["user.box.version"])
        XCTAssertNil(editing["user.box.etag"])
        XCTAssertEqual(try attributes(of: mount.path("new.txt")), [:], "Box does not have the file yet")

        try edited.close()
        try created.close()
        let landed = try await waitForBox("old.txt", text: "one\ntwo\n")
        let new = try await waitForBox("new.txt", text: "fresh\n")
        try await waitUntil("the attributes describe the uploaded versions") {
            let oldNow = try self.attributes(of: mount.path("old.txt")), newNow = try self.attributes(of: mount.path("new.txt"))
            return oldNow["user.box.sha1"] == landed.sha1 && oldNow["user.box.version"] == landed.versionID
                && newNow["user.box.id"] == new.id && newNow["user.box.sha1"] == new.sha1
        }
    }

    /// `ls -l` asks every file for its SELinux label and ACL unless an answer says the filesystem has none:
    /// boxfs's ENOTSUP makes it ask once for the whole folder, not twice per file.
    func testLsAsksOnceForLabelsAndACLsNotOncePerFile() async throws {
        var texts: [String: String] = [:]
        for index in 0..<20 { texts["many/f\(index).txt"] = "\(index)\n" }
        let mount = try await startAndMount(texts: texts, options: ["events=off"])
        _ = try succeed(["ls", "-l", mount.path("many")])
        let traced = try Shell.run(["strace", "-f", "-e", "trace=getxattr,lgetxattr", "ls", "-l", mount.path("many")])
        XCTAssertEqual(traced.status, 0, traced.stderr)
        let asked = traced.stderr.split(separator: "\n").filter { $0.contains("getxattr(") }
        XCTAssertEqual(asked.count, 2, asked.joined(separator: "\n"))
        XCTAssertTrue(asked.allSatisfy { $0.contains("EOPNOTSUPP") }, asked.joined(separator: "\n"))
    }

    /// Serving getxattr makes the kernel ask for `security.capability` before every write, unless the mount
    /// negotiates FUSE_HANDLE_KILLPRIV_V2: then it asks once per open file. The daemon's debug log names each
    /// attribute it refused, so it counts the questions.
    func testWritesAskForFileCapabilitiesOncePerOpenFileNotPerWrite() async throws {
        let mount = try await startAndMount(texts: ["old.txt": "one\n"], options: ["events=off", "debug"])
        let dd = try Shell.run(["dd", "if=/dev/zero", "of=" + mount.path("new.bin"), "bs=4096", "count=300", "status=none"])
        XCTAssertEqual(dd.status, 0, dd.stderr)
        let append = try Shell.run(["dd", "if=/dev/zero", "of=" + mount.path("old.txt"), "bs=4096", "count=300",
                                    "oflag=append", "conv=notrunc", "status=none"])
        XCTAssertEqual(append.status, 0, append.stderr)
        try await waitForBox("new.bin", sha1: try succeed(["sh", "-c", "head -c 1228800 /dev/zero | sha1sum | cut -d' ' -f1"])
            .trimmingCharacters(in: .whitespacesAndNewlines))
        let log = try String(contentsOf: try XCTUnwrap(daemonLogs.last), encoding: .utf8)
        let asked = log.split(separator: "\n").filter { $0.contains("getxattr: security.capability") }
        XCTAssertGreaterThan(log.split(separator: "\n").count, 10, "the debug log is written")
        XCTAssertLessThanOrEqual(asked.count, 4, "600 writes to two files asked \(asked.count) times:\n" + asked.prefix(3).joined(separator: "\n"))
    }

    // MARK: Helpers

    /// Every attribute `getfattr -d -m -` shows, by name.
    func attributes(of path: String) throws -> [String: String] {
        let output = try succeed(["getfattr", "--absolute-names", "-d", "-m", "-", path])
        var found: [String: String] = [:]
        for line in output.split(separator: "\n") where !line.hasPrefix("#") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            var value = line[line.index(after: equals)...]
            if value.hasPrefix("\""), value.hasSuffix("\"") { value = value.dropFirst().dropLast() }
            found[String(line[..<equals])] = String(value)
        }
        return found
    }

    /// One attribute's value (`getfattr --only-values`).
    func value(_ path: String, _ name: String) throws -> String {
        try succeed(["getfattr", "--absolute-names", "--only-values", "-n", name, path])
    }

    /// Runs a command that must fail; answers its stderr.
    func fails(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try Shell.run(arguments)
        XCTAssertNotEqual(result.status, 0, "\(arguments) succeeded: \(result.stdout)", file: file, line: line)
        return result.stderr
    }

    func refresh(_ path: String) throws {
        let result = try Shell.run([try MountFixture.locateBinary().path, "refresh", path])
        XCTAssertEqual(result.status, 0, result.stderr)
    }

    func waitUntil(_ what: String, timeout: Double = 30, _ condition: () throws -> Bool) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while try !condition() {
            guard Date() < deadline else { return XCTFail("timed out waiting until \(what)") }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
    }
}
