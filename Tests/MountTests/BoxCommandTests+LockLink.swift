import BoxTestSupport
import Foundation
import XCTest

/// `boxfs lock`, `unlock` and `link` act on Box with the mount's own rights and the mount shows the result at once
/// (docs/SEMANTICS.md "Box commands").
final class BoxCommandLockLinkTests: BoxCommandTestCase {
    func testLockKeepsTheMountWritingWhileAnotherUserIsRefusedAndUnlockFreesIt() async throws {
        let mount = try await startAndMount(texts: ["team/plan.txt": "one\n"], options: Self.quietOptions)
        let colleague = try otherUser()
        try collaborate(colleague.id, on: try XCTUnwrap(try api.entry(at: "team")).id)
        let file = try XCTUnwrap(try api.entry(at: "team/plan.txt"))
        XCTAssertEqual(try String(contentsOfFile: mount.path("team/plan.txt"), encoding: .utf8), "one\n")

        let locked = try jsonObject(try boxfsSucceeds(["lock", mount.path("team/plan.txt"), "--expires", "2h", "--json"]))

        let lock = try XCTUnwrap(locked["lock"] as? [String: Any], "\(locked)")
        XCTAssertEqual(locked["path"] as? String, mount.path("team/plan.txt"))
        XCTAssertNotNil(lock["expires_at"] as? String)
        let onBox = try api.call("GET", "/2.0/files/\(file.id)?fields=lock")
        let boxLock = try XCTUnwrap(onBox["lock"] as? [String: Any], "Box holds the lock: \(onBox)")
        let expires = try XCTUnwrap(ISO8601DateFormatter().date(from: try XCTUnwrap(boxLock["expires_at"] as? String)))
        XCTAssertEqual(expires.timeIntervalSinceNow, 7200, accuracy: 120)
        // The holder's mount still writes, and the write reaches Box.
        XCTAssertEqual(try succeed(["stat", "-c", "%A", mount.path("team/plan.txt")]), "-rw-r--r--\n")
        try Shell.bash("echo two >> \"$F\"", environment: ["F": mount.path("team/plan.txt")])
        try await waitForBox("team/plan.txt", text: "one\ntwo\n")
        // Box refuses the other user.
        let refused = try colleague.api.request("PUT", "/2.0/files/\(file.id)", json: ["name": "renamed.txt"])
        XCTAssertEqual(refused.status, 403, "\(refused.body)")

        XCTAssertEqual(try boxfsSucceeds(["unlock", mount.path("team/plan.txt")]), "\(mount.path("team/plan.txt")): unlocked\n")
        XCTAssertTrue(try api.call("GET", "/2.0/files/\(file.id)?fields=lock")["lock"] is NSNull)
        XCTAssertEqual(try colleague.api.request("PUT", "/2.0/files/\(file.id)", json: ["name": "renamed.txt"]).status, 200)
    }

    /// The mount takes Box's answer to the lock at once: a lock it last saw held by someone else (now gone on
    /// Box, unknown to this quiet mount) is replaced by its own, and the file is writable again without a refresh.
    func testLockUpdatesTheMountsCachedLockAtOnce() async throws {
        let mount = try await startAndMount(texts: ["team/plan.txt": "one\n"], options: Self.quietOptions)
        let colleague = try otherUser()
        try collaborate(colleague.id, on: try XCTUnwrap(try api.entry(at: "team")).id)
        let file = try XCTUnwrap(try api.entry(at: "team/plan.txt"))
        _ = try colleague.api.call("PUT", "/2.0/files/\(file.id)?fields=lock", json: ["lock": ["access": "lock"]])
        try boxfsSucceeds(["refresh", mount.path("team")])
        XCTAssertEqual(try succeed(["stat", "-c", "%A", mount.path("team/plan.txt")]), "-r--r--r--\n")
        _ = try colleague.api.call("PUT", "/2.0/files/\(file.id)?fields=lock", json: ["lock": NSNull()])

        try boxfsSucceeds(["lock", mount.path("team/plan.txt")])

        XCTAssertEqual(try succeed(["stat", "-c", "%A", mount.path("team/plan.txt")]), "-rw-r--r--\n")
        try Shell.bash("echo two >> \"$F\"", environment: ["F": mount.path("team/plan.txt")])
        try await waitForBox("team/plan.txt", text: "one\ntwo\n")
    }

    /// Commands run side by side, each through its own open of a command file, while files are read.
    func testCommandsInParallelEachGetTheirOwnAnswer() async throws {
        var texts: [String: String] = [:]
        for index in 0..<8 { texts["f\(index).txt"] = "file \(index)\n" }
        let mount = try await startAndMount(texts: texts, options: Self.quietOptions)
        let script = (0..<8).map { "\"$B\" link \"$M/f\($0).txt\" > \"$O/\($0)\" 2>&1 & cat \"$M/f\($0).txt\" > /dev/null &" }
            .joined(separator: "\n") + "\nwait"
        let out = try makeTemporaryDirectory()

        let result = try Shell.bash(script, environment: ["B": try MountFixture.locateBinary().path, "M": mount.mountpoint.path, "O": out.path])

        XCTAssertEqual(result.status, 0, result.stderr)
        var urls: Set<String> = []
        for index in 0..<8 {
            let url = try String(contentsOf: out.appendingPathComponent("\(index)"), encoding: .utf8).trimmingCharacters(in: .newlines)
            XCTAssertEqual(try api.sharedLinkURL(fileID: try XCTUnwrap(try api.entry(at: "f\(index).txt")).id), url)
            urls.insert(url)
        }
        XCTAssertEqual(urls.count, 8)
    }

    func testLockOfAFileAnotherUserLockedIsBoxsRefusalInOneLine() async throws {
        let mount = try await startAndMount(texts: ["team/plan.txt": "one\n"], options: Self.quietOptions)
        let colleague = try otherUser()
        try collaborate(colleague.id, on: try XCTUnwrap(try api.entry(at: "team")).id)
        let file = try XCTUnwrap(try api.entry(at: "team/plan.txt"))
        _ = try colleague.api.call("PUT", "/2.0/files/\(file.id)?fields=lock", json: ["lock": ["access": "lock"]])

        let line = try boxfsFails(["lock", mount.path("team/plan.txt")])

        XCTAssertTrue(line.hasPrefix("boxfs lock: locking plan.txt: Box refused (403 access_denied_item_locked"), line)
        let after = try api.call("GET", "/2.0/files/\(file.id)?fields=lock")
        XCTAssertEqual(((after["lock"] as? [String: Any])?["created_by"] as? [String: Any])?["id"] as? String, colleague.id)
    }

    func testLinkGivesAURLASecondUserDownloadsThroughAndRemoveEndsIt() async throws {
        let mount = try await startAndMount(texts: ["docs/report.txt": "quarterly numbers\n"], options: Self.quietOptions)
        let colleague = try otherUser()
        let file = try XCTUnwrap(try api.entry(at: "docs/report.txt"))

        let url = try boxfsSucceeds(["link", mount.path("docs/report.txt")]).trimmingCharacters(in: .newlines)

        XCTAssertTrue(url.contains("/s/"), url)
        XCTAssertEqual(try api.sharedLinkURL(fileID: file.id), url)
        XCTAssertEqual(try downloadThroughLink(url, as: colleague.api, fileID: file.id), "quarterly numbers\n")
        // The same command again keeps the URL.
        XCTAssertEqual(try boxfsSucceeds(["link", mount.path("docs/report.txt")]), url + "\n")
        // The mount took the item's new etag: the write after sharing is one plain new version, never refused
        // for the etag the link replaced.
        let before = try requests().count
        try Shell.bash("echo more >> \"$F\"", environment: ["F": mount.path("docs/report.txt")])
        try await waitForBox("docs/report.txt", text: "quarterly numbers\nmore\n")
        XCTAssertEqual(try boxNames(in: "docs"), ["report.txt"])
        XCTAssertEqual(try requests().dropFirst(before).filter { $0.status == 412 }.map(\.path), [])

        XCTAssertEqual(try boxfsSucceeds(["link", mount.path("docs/report.txt"), "--remove"]),
                       "\(mount.path("docs/report.txt")): shared link removed\n")
        XCTAssertNil(try api.sharedLinkURL(fileID: file.id))
        XCTAssertEqual(try sharedItemStatus(url, as: colleague.api), 404)
    }

    func testLinkWithAPasswordFileAccessExpiryAndNoDownload() async throws {
        let mount = try await startAndMount(texts: ["offer.txt": "terms\n", "album/a.txt": "a\n"], options: Self.quietOptions)
        let colleague = try otherUser()
        let file = try XCTUnwrap(try api.entry(at: "offer.txt"))
        let password = "Secret-Pass-42"
        let loose = try secretFile(password + "\n", mode: 0o644)

        let refused = try boxfsFails(["link", mount.path("offer.txt"), "--password-file", loose])
        XCTAssertTrue(refused.contains("accessible by others") && refused.contains("chmod 600"), refused)
        XCTAssertNil(try api.sharedLinkURL(fileID: file.id), "nothing was shared")

        let passwordFile = try secretFile(password + "\n", mode: 0o600)
        let output = try jsonObject(try boxfsSucceeds([
            "link", mount.path("offer.txt"), "--password-file", passwordFile, "--access", "open",
            "--expires", "2099-01-31", "--no-download", "--json"]))

        let link = try XCTUnwrap(output["link"] as? [String: Any], "\(output)")
        let url = try XCTUnwrap(link["url"] as? String)
        XCTAssertEqual(link["is_password_enabled"] as? Bool, true)
        XCTAssertEqual(link["can_download"] as? Bool, false)
        XCTAssertEqual(link["access"] as? String, "open")
        XCTAssertTrue((link["unshared_at"] as? String)?.hasPrefix("2099-01-3") == true, "\(link)")
        XCTAssertEqual(try sharedItemStatus(url, as: colleague.api), 403, "no password: refused")
        XCTAssertEqual(try sharedItemStatus(url, password: password, as: colleague.api), 200)
        // The password reaches neither the daemon's log nor the command's output.
        let log = try String(contentsOf: try XCTUnwrap(daemonLogs.last), encoding: .utf8)
        XCTAssertFalse(log.contains(password))
        XCTAssertFalse(output.description.contains(password))

        // A weak password is Box's refusal, in one line, and the link keeps its password.
        let weak = try secretFile("short\n", mode: 0o600)
        let line = try boxfsFails(["link", mount.path("offer.txt"), "--password-file", weak])
        XCTAssertTrue(line.hasPrefix("boxfs link: sharing offer.txt: Box refused (400"), line)
        XCTAssertFalse(line.contains("short"), line)
        XCTAssertEqual(try sharedItemStatus(url, password: password, as: colleague.api), 200)

        // A folder, company-wide.
        let folderURL = try boxfsSucceeds(["link", mount.path("album"), "--access", "company"])
        let folder = try XCTUnwrap(try api.entry(at: "album"))
        let shared = try api.call("GET", "/2.0/folders/\(folder.id)?fields=shared_link")
        XCTAssertEqual((shared["shared_link"] as? [String: Any])?["url"] as? String, folderURL.trimmingCharacters(in: .newlines))
        XCTAssertEqual((shared["shared_link"] as? [String: Any])?["access"] as? String, "company")
    }

    func testErrorsAreOneLineAndA5xxIsRetried() async throws {
        let mount = try await startAndMount(texts: ["a.txt": "a\n"], options: Self.quietOptions)
        let outside = try makeTemporaryDirectory()
        FileManager.default.createFile(atPath: outside.appendingPathComponent("f").path, contents: Data())

        let notMounted = try boxfsFails(["lock", outside.appendingPathComponent("f").path])
        XCTAssertTrue(notMounted.hasPrefix("boxfs lock: \(outside.appendingPathComponent("f").path) is not in a boxfs mount"), notMounted)
        let missing = try boxfsFails(["link", mount.path("nothing.txt")])
        XCTAssertEqual(missing, "boxfs link: \(mount.path("nothing.txt")): No such file or directory\n")
        let folder = try boxfsFails(["lock", mount.path("")])
        XCTAssertTrue(folder.contains("Box locks files only"), folder)
        // The channel is never listed, so no tool walks into it, and only the mount's owner may open it.
        XCTAssertFalse(try succeed(["ls", "-a", mount.path("")]).contains(".boxfs"))
        XCTAssertFalse(try succeed(["find", mount.mountpoint.path]).contains(".boxfs"))
        XCTAssertEqual(try succeed(["stat", "-c", "%A %s", mount.path(".boxfs\\command")]), "-rw------- 0\n")

        // Two 500s, then the lock lands: one policy retries it.
        let file = try XCTUnwrap(try api.entry(at: "a.txt"))
        let before = try requests().count
        try api.addFault(["path_prefix": "/2.0/files/\(file.id)", "method": "PUT", "error_status": 500, "error_rate": 1, "count": 2])
        try boxfsSucceeds(["lock", mount.path("a.txt")])
        let puts = try requests().dropFirst(before).filter { $0.method == "PUT" && $0.path == "/2.0/files/\(file.id)" }
        XCTAssertEqual(puts.map(\.status), [500, 500, 200])
        XCTAssertNotNil(try api.call("GET", "/2.0/files/\(file.id)?fields=lock")["lock"] as? [String: Any])

        // A server that keeps failing: Box's answer after the retries, in one line.
        try api.addFault(["path_prefix": "/2.0/files/\(file.id)", "method": "PUT", "error_status": 503, "error_rate": 1])
        let line = try boxfsFails(["unlock", mount.path("a.txt")])
        XCTAssertTrue(line.hasPrefix("boxfs unlock: unlocking a.txt: Box refused (503"), line)
        try api.clearFaults()
    }

    func testCtrlCStopsACommandWaitingForAHungServer() async throws {
        let mount = try await startAndMount(texts: ["a.txt": "a\n"], options: Self.quietOptions)
        let file = try XCTUnwrap(try api.entry(at: "a.txt"))
        try api.stallResponses(pathPrefix: "/2.0/files/\(file.id)", method: "PUT")
        let started = Date()

        let result = try Shell.bash("timeout -s INT 2 \"$B\" lock \"$F\"; echo \"status $?\"",
                                    environment: ["B": try MountFixture.locateBinary().path, "F": mount.path("a.txt")],
                                    timeout: 30)

        XCTAssertTrue(result.stdout.contains("status 124"), "interrupted by SIGINT: \(result.stdout) \(result.stderr)")
        XCTAssertLessThan(Date().timeIntervalSince(started), 15, "the interrupted command did not wait for the server")
        try api.clearFaults()
        // The mount still serves.
        XCTAssertEqual(try String(contentsOfFile: mount.path("a.txt"), encoding: .utf8), "a\n")
    }

    // MARK: Reaching an item through its link, as another user

    func sharedItemStatus(_ url: String, password: String? = nil, as user: BoxSimAPI) throws -> Int {
        try user.request("GET", "/2.0/shared_items?fields=id", extraArguments: ["-H", linkHeader(url, password)]).status
    }

    func downloadThroughLink(_ url: String, password: String? = nil, as user: BoxSimAPI, fileID: String) throws -> String {
        let result = try Shell.run(["curl", "-s", "-S", "-f", "-L", "-g", "-H", "Authorization: Bearer \(user.token)",
                                    "-H", linkHeader(url, password), "\(user.baseURL)/2.0/files/\(fileID)/content"])
        XCTAssertTrue(result.succeeded, result.stderr)
        return result.stdout
    }

    private func linkHeader(_ url: String, _ password: String?) -> String {
        "BoxApi: shared_link=\(url)" + (password.map { "&shared_link_password=\($0)" } ?? "")
    }
}
