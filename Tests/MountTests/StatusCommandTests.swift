import BoxTestSupport
import Foundation
import XCTest

/// `boxfs status [MOUNTPOINT] [--json]` shows pending and running uploads with progress, and recent errors.
final class StatusCommandTests: WriteTestCase {
    /// Runs `boxfs status ARGS...`; must succeed.
    func status(_ arguments: [String]) throws -> String {
        try succeed([try MountFixture.locateBinary().path, "status"] + arguments)
    }

    func uploads(_ json: [String: Any]) -> [[String: Any]] { json["uploads"] as? [[String: Any]] ?? [] }

    func number(_ value: Any?) -> Int64? { (value as? NSNumber)?.int64Value }

    func testAWaitingUploadIsListedWithItsSize() async throws {
        let mount = try await startAndMount(options: ["write_back_delay=60"])
        let local = try localFile(size: 5000, seed: 81)
        try succeed(["cp", local.path, mount.path("pending.bin")])

        let json = try statusJSON(mount)
        XCTAssertEqual(json["mountpoint"] as? String, mount.mountpoint.path)
        XCTAssertEqual(number(json["pending"]), 1)
        XCTAssertEqual(number(json["uploading"]), 0)
        let entry = try XCTUnwrap(uploads(json).first, "\(json)")
        XCTAssertEqual(entry["name"] as? String, "pending.bin")
        XCTAssertEqual(entry["state"] as? String, "waiting")
        XCTAssertEqual(number(entry["bytes_total"]), 5000)
        XCTAssertEqual(number(entry["bytes_sent"]), 0)
        XCTAssertEqual(number(entry["attempts"]), 0)
        XCTAssertTrue(entry["last_error"] is NSNull, "no error yet: \(entry)")
        XCTAssertTrue(try status([mount.mountpoint.path]).contains("pending.bin"), "the text form names it too")
    }

    func testARunningChunkedUploadShowsItsProgress() async throws {
        let mount = try await startAndMount()
        let api = try self.api
        try api.addFault(["path_prefix": "/api/2.0/files/upload_sessions/", "method": "PUT", "latency_ms": 1500])
        let local = try localFile(size: 40 << 20, seed: 82)
        try succeed(["cp", local.path, mount.path("big.bin")])

        let running = try await Poll.until("status to show big.bin uploading part-way", timeout: 60) {
            self.uploads(try self.statusJSON(mount)).first { entry in
                guard entry["state"] as? String == "uploading", let sent = self.number(entry["bytes_sent"]) else {
                    return false
                }
                return sent > 0 && sent < 40 << 20
            }
        }
        XCTAssertEqual(running["name"] as? String, "big.bin")
        XCTAssertEqual(number(running["bytes_total"]), 40 << 20)
        XCTAssertGreaterThanOrEqual(number(try statusJSON(mount)["uploading"]) ?? 0, 1)

        try api.clearFaults()
        try await waitForBox("big.bin", sha1: try sha1(local.path), timeout: 120)
        try await Poll.until("status to show nothing pending") {
            self.number(try self.statusJSON(mount)["pending"]) == 0 ? true : nil
        }
    }

    func testAFailedAttemptIsARecentErrorAndTheUploadIsRetried() async throws {
        let mount = try await startAndMount()
        try api.addFault(["path_prefix": UploadPaths.newFile, "method": "POST", "error_status": 500, "count": 1])
        try write("fails once\n", to: mount.path("flaky.txt"))
        try await waitForBox("flaky.txt", text: "fails once\n")

        let json = try statusJSON(mount)
        let errors = try XCTUnwrap(json["recent_errors"] as? [[String: Any]], "\(json)")
        let error = try XCTUnwrap(errors.first { $0["name"] as? String == "flaky.txt" }, "\(errors)")
        XCTAssertFalse((error["message"] as? String ?? "").isEmpty)
        XCTAssertNotNil(ISO8601DateFormatter().date(from: error["date"] as? String ?? ""), "RFC 3339 date: \(error)")
        XCTAssertEqual(number(json["pending"]), 0)
    }

    func testStatusWithoutAMountpointCoversEveryBoxfsMount() async throws {
        let first = try await startAndMount(options: ["write_back_delay=60"])
        let second = try mountWithFreshCache(options: ["write_back_delay=60"])
        try write("one\n", to: first.path("in-first.txt"))
        try write("two\n", to: second.path("in-second.txt"))
        let text = try status([])
        for fixture in [first, second] { XCTAssertTrue(text.contains(fixture.mountpoint.path), text) }
        XCTAssertTrue(text.contains("in-first.txt") && text.contains("in-second.txt"), text)

        let output = try status(["--json"])
        let parsed = try JSONSerialization.jsonObject(with: Data(output.utf8))
        let mounts = parsed as? [[String: Any]] ?? [parsed as? [String: Any] ?? [:]]
        let byMountpoint = Dictionary(mounts.map { ($0["mountpoint"] as? String ?? "", $0) }) { one, _ in one }
        XCTAssertEqual(byMountpoint[first.mountpoint.path].map(uploads)?.first?["name"] as? String, "in-first.txt")
        XCTAssertEqual(byMountpoint[second.mountpoint.path].map(uploads)?.first?["name"] as? String, "in-second.txt")
    }

    func testStatusIsAnUnlistedReadOnlyFileThatNoBoxNameCanHide() async throws {
        let mount = try await startAndMount(options: ["write_back_delay=60"])
        try write("waiting\n", to: mount.path("x.txt"))
        let statusPath = mount.path(".boxfs\\status")
        let value = try succeed(["cat", statusPath])
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(value.utf8)) as? [String: Any], value)
        XCTAssertEqual(number(json["pending"]), 1)
        XCTAssertEqual(uploads(json).first?["name"] as? String, "x.txt")

        XCTAssertEqual(try succeed(["ls", "-A", mount.mountpoint.path]), "x.txt\n", "the status file is never listed")
        try fail(["bash", "-c", "echo x > \"$0\"", statusPath], with: "Permission denied")
        // Box rejects `\` in names, so no file on Box can ever be the status file.
        try fail(["touch", mount.path("other\\name")], with: "Invalid argument")
    }
}
