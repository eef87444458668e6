import BoxTestSupport
import Foundation
import XCTest

/// `boxfs info` prints what the mount's `user.box.*` attributes and `stat` say, asking Box nothing, and fails
/// with one line for a path that is missing or outside a boxfs mount (docs/SEMANTICS.md "Extended attributes").
final class InfoCommandTests: WriteTestCase {
    func testInfoPrintsTheBoxFactsAsTextAndJSONWithoutAskingBox() async throws {
        let mount = try await startAndMount(texts: ["r/q3.txt": "numbers\n"], options: ["events=off", "dir_cache_ttl=600"])
        let sim = try XCTUnwrap(boxsim)
        let file = try XCTUnwrap(try api.entry(at: "r/q3.txt"))
        let box = try api.call("GET", "/2.0/files/\(file.id)?fields=owned_by,modified_by")
        let owner = try XCTUnwrap((box["owned_by"] as? [String: Any])?["login"] as? String)
        let shared = try api.call("PUT", "/2.0/files/\(file.id)?fields=shared_link", json: ["shared_link": ["access": "open"]])
        let link = try XCTUnwrap((shared["shared_link"] as? [String: Any])?["url"] as? String)
        try refresh(mount.mountpoint.path)
        let current = try XCTUnwrap(try api.entry(at: "r/q3.txt"))
        let mtime = try succeed(["date", "-u", "-d", "@" + succeed(["stat", "-c", "%Y", mount.path("r/q3.txt")])
            .trimmingCharacters(in: .whitespacesAndNewlines), "+%Y-%m-%dT%H:%M:%SZ"]).trimmingCharacters(in: .newlines)
        let folder = try XCTUnwrap(try api.entry(at: "r"))
        let before = try requests().last?.seq ?? 0

        let text = try info([mount.path("r/q3.txt")])
        XCTAssertEqual(text, """
            path:        \(mount.path("r/q3.txt"))
            type:        file
            id:          \(file.id)
            version:     \(current.versionID ?? "?")
            sha1:        \(try sha1(of: "numbers\n"))
            etag:        \(current.etag ?? "?")
            size:        8 bytes
            modified:    \(mtime) by \(owner)
            owner:       \(owner)
            shared link: \(link)
            lock:        none
            web URL:     \(sim.baseURL)/file/\(file.id)

            """)

        let json = try JSONSerialization.jsonObject(with: Data(try info(["--json", mount.path("r")]).utf8)) as? [String: Any]
        XCTAssertEqual(json?["type"] as? String, "folder")
        XCTAssertEqual(json?["id"] as? String, folder.id)
        XCTAssertEqual(json?["url"] as? String, "\(sim.baseURL)/folder/\(folder.id)")
        XCTAssertEqual(json?["on_box"] as? Bool, true)
        XCTAssertTrue(json?["sha1"] is NSNull, "\(String(describing: json))")
        XCTAssertTrue(json?["lock"] is NSNull)
        let fileJSON = try JSONSerialization.jsonObject(with: Data(try info(["--json", mount.path("r/q3.txt")]).utf8)) as? [String: Any]
        XCTAssertEqual(fileJSON?["shared_link"] as? String, link)
        XCTAssertEqual(fileJSON?["size"] as? Int, 8)
        XCTAssertEqual(fileJSON?["modified_by"] as? String, owner)
        XCTAssertEqual(fileJSON?["modified_at"] as? String, mtime)
        try await Task.sleep(nanoseconds: 300_000_000)
        XCTAssertEqual(try requests().after(before).summary, "", "boxfs info asks Box nothing")
    }

    func testInfoFailsWithOneLineForAMissingPathOrOneOutsideAMount() async throws {
        let mount = try await startAndMount(texts: ["x.txt": "x\n"], options: ["events=off"])
        let binary = try MountFixture.locateBinary().path
        let missing = try Shell.run([binary, "info", mount.path("nope.txt")])
        XCTAssertEqual(missing.status, 1)
        XCTAssertEqual(missing.stderr, "boxfs info: \(mount.path("nope.txt")): No such file or directory\n")
        let outside = try Shell.run([binary, "info", "/proc/version"])
        XCTAssertEqual(outside.status, 1)
        XCTAssertEqual(outside.stderr, "boxfs info: /proc/version is not in a boxfs mount (it is on proc)\n")
        XCTAssertEqual(missing.stdout + outside.stdout, "")
    }

    func info(_ arguments: [String]) throws -> String {
        let result = try Shell.run([try MountFixture.locateBinary().path, "info"] + arguments)
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout
    }

    func refresh(_ path: String) throws {
        let result = try Shell.run([try MountFixture.locateBinary().path, "refresh", path])
        XCTAssertEqual(result.status, 0, result.stderr)
    }
}
