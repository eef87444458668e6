import BoxTestSupport
import Foundation
import XCTest

/// The account's space and upload limit are errors the writer sees (ENOSPC, EFBIG), and an upload Box refuses
/// for space later is kept, not dropped.
final class QuotaTests: WriteTestCase {
    /// Starts boxsim holding 1 MiB, sets the admin's limits, then mounts (so the mount starts with them).
    func mountWithLimits(_ limits: (_ spaceUsed: Int64) -> [String: Any], options: [String] = []) async throws
        -> MountFixture {
        try await startBoxSim(largeFiles: ["existing.bin": 1 << 20])
        let api = try self.api
        let used = try XCTUnwrap((try api.currentUser()["space_used"] as? NSNumber)?.int64Value)
        try api.updateCurrentUser(limits(used))
        // The default delay, so the part written before the error is removed before it could be uploaded.
        return try mountWritable(options: ["write_back_delay=2"] + options)
    }

    func dd(_ path: String, mebibytes: Int) -> [String] {
        ["dd", "if=/dev/zero", "of=\(path)", "bs=1M", "count=\(mebibytes)", "conv=fsync", "status=none"]
    }

    func testWritingPastTheAccountsSpaceIsENOSPC() async throws {
        let mount = try await mountWithLimits { used in ["space_amount": used + (2 << 20)] }
        let before = try lastSequence(try XCTUnwrap(boxsim))
        try fail(dd(mount.path("big.bin"), mebibytes: 4), with: "No space left on device")
        try succeed(["rm", "-f", mount.path("big.bin")])

        try write("still fits\n", to: mount.path("small.txt"))
        try await waitForBox("small.txt", text: "still fits\n")
        let log = try requests().after(before)
        XCTAssertTrue(log.filter { $0.status == 403 }.isEmpty, "the mount refused it, not Box\n\(log.summary)")
        XCTAssertEqual(try boxNames(in: ""), ["existing.bin", "small.txt"])
    }

    func testAFileOverTheAccountsUploadLimitIsEFBIG() async throws {
        let mount = try await mountWithLimits { _ in ["max_upload_size": 2 << 20] }
        try fail(dd(mount.path("huge.bin"), mebibytes: 3), with: "File too large")
        try succeed(["rm", "-f", mount.path("huge.bin")])

        try succeed(dd(mount.path("fits.bin"), mebibytes: 2))  // exactly the limit is allowed
        let zeros = try Shell.bash("head -c \(2 << 20) /dev/zero | sha1sum").stdout.prefix(40)
        try await waitForBox("fits.bin", sha1: String(zeros))
        XCTAssertEqual(try boxNames(in: ""), ["existing.bin", "fits.bin"])
    }

    func testAnUploadBoxRefusesForSpaceStaysJournaledAndArrivesOnceThereIsRoom() async throws {
        let mount = try await startAndMount(options: ["write_back_delay=2", "upload_wait=1"])
        let api = try self.api
        let local = try localFile(size: 3 << 20, seed: 71)
        try succeed(["cp", local.path, mount.path("kept.bin")])
        // The account fills up (elsewhere) before the upload starts: Box refuses it.
        try api.updateCurrentUser(["space_amount": 1 << 20])
        let sim = try XCTUnwrap(boxsim)
        try await Poll.until("Box to refuse the upload for space") {
            try sim.requestLog().contains { $0.path.contains("/files") && $0.status == 403 } ? true : nil
        }
        XCTAssertEqual(try sha1(mount.path("kept.bin")), try sha1(local.path), "the bytes are still readable")
        XCTAssertNil(try api.entry(at: "kept.bin"))

        try api.updateCurrentUser(["space_amount": 10 << 30])
        try await unmountAndWait(mount)
        try mountWritable()
        try await waitForBox("kept.bin", sha1: try sha1(local.path))
    }
}
