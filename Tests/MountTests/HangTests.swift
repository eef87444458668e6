import BoxTestSupport
import Foundation
import XCTest

/// A server that stops answering never makes a caller unkillable or a read wait without bound: FUSE
/// interrupts end the wait at once, stalled transfers fail after `stall_timeout`, a mount says what it
/// waits for. Hangs are boxsim fault rules: a huge `latency_ms` (no answer at all) or a tiny
/// `bandwidth_bytes_per_second` (the body stops after its first KiB).
final class HangTests: LoggedMountTestCase {


    /// Listings of `folderID` never answer (until the rule is removed).
    func hangListings(of folderID: String) throws {
        try api.addFault(["path_prefix": "/2.0/folders/\(folderID)/items", "method": "GET", "latency_ms": 600_000])
    }

    // MARK: interrupts

    func testAnLsOfAFolderWhoseListingHangsDiesAtOnceWhenKilledAndTheFolderListsOnceTheServerAnswers() async throws {
        let seed = try SeedTree.make(texts: ["slow/a.txt": "a\n", "slow/b.txt": "b\n", "other.txt": "o\n"])
        let mount = try await mountWithLog(seed: seed)
        XCTAssertTrue(try succeed(["ls", mount.mountpoint.path]).contains("slow"))
        let slow = try XCTUnwrap(try api.entry(at: "slow"))
        try hangListings(of: slow.id)

        let ls = try Spawned(["ls", mount.path("slow")])
        try await ls.waitUntilBlockedInFUSE()
        let killedAt = Date()
        ls.kill(SIGKILL)
        try await Poll.until("the killed ls to be gone", timeout: 10, interval: 0.02) { ls.isGone ? true : nil }
        let gone = Date().timeIntervalSince(killedAt)
        XCTAssertLessThan(gone, 2, "ls killed while the listing hangs is reaped within 2 s (took \(gone) s)")

        // The abandoned listing left nothing behind: once the server answers, the folder lists.
        try api.clearFaults()
        let listed = try Shell.run(["ls", mount.path("slow")], timeout: 20)
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertEqual(listed.stdout.split(separator: "\n"), ["a.txt", "b.txt"])
    }

    func testAnInterruptedCallerStopsWaitingWithoutCancellingTheListingOthersWaitFor() async throws {
        let seed = try SeedTree.make(texts: ["shared/a.txt": "a\n", "shared/b.txt": "b\n", "other.txt": "o\n"])
        let mount = try await mountWithLog(seed: seed)
        XCTAssertTrue(try succeed(["ls", mount.mountpoint.path]).contains("shared"))
        let shared = try XCTUnwrap(try api.entry(at: "shared"))
        let before = try lastSequence(try XCTUnwrap(boxsim))
        // One slow answer (6 s): both callers wait for the same listing.
        try api.addFault(["path_prefix": "/2.0/folders/\(shared.id)/items", "method": "GET", "latency_ms": 6000,
                          "count": 1])

        let first = try Spawned(["ls", mount.path("shared")])
        try await first.waitUntilBlockedInFUSE()
        let second = try Spawned(["ls", mount.path("shared")])
        try await second.waitUntilBlockedInFUSE()
        first.kill(SIGKILL)
        try await Poll.until("the killed ls to be gone", timeout: 10, interval: 0.02) { first.isGone ? true : nil }
        XCTAssertFalse(second.isGone, "the other caller still waits for the listing")

        try await Poll.until("the other ls to finish", timeout: 30) { second.isGone ? true : nil }
        XCTAssertEqual(second.status, 0, "the other caller gets the listing: \(second.stderr)")
        XCTAssertEqual(second.stdout.split(separator: "\n"), ["a.txt", "b.txt"])
        let listings = try XCTUnwrap(boxsim).requestLog().after(before)
            .filter { $0.path == "/2.0/folders/\(shared.id)/items" }
        XCTAssertEqual(listings.count, 1, "one listing request, not cancelled and sent again: \(listings)")
    }

    // MARK: stalled transfers

    func testACatOfAFileWhoseDownloadStallsFailsWithEIOWithinTheStallTimeoutAndWorksOnceItMovesAgain() async throws {
        let size = 3 << 20
        let seed = try SeedTree.make(texts: [:], largeFiles: ["big.bin": size])
        let expected = try sha1(seed.appendingPathComponent("big.bin").path)
        let mount = try await mountWithLog(seed: seed, options: ["stall_timeout=3", "cache=off"])
        XCTAssertTrue(try succeed(["ls", mount.mountpoint.path]).contains("big.bin"))
        // The download host sends the first KiB, then nothing for 17 minutes.
        try api.addFault(["path_prefix": "/dl/", "bandwidth_bytes_per_second": 1])

        let started = Date()
        let failed = try Shell.run(["cat", mount.path("big.bin")], timeout: 120)
        let took = Date().timeIntervalSince(started)
        XCTAssertNotEqual(failed.status, 0, "a stalled download fails the read")
        XCTAssertTrue(failed.stderr.contains("Input/output error"), "cat: \(failed.stderr)")
        XCTAssertLessThan(took, 3 + 5, "the read fails within stall_timeout (3 s) and a margin, took \(took) s")
        let log = try String(contentsOf: try XCTUnwrap(daemonLog), encoding: .utf8)
        XCTAssertTrue(log.contains("stalled: nothing arrived for 3 s (stall_timeout)"), "the daemon says why")

        try api.clearFaults()
        // A range fetch started before the fault was cleared may still be stalled; it fails within stall_timeout,
        // and a later open reads the file whole.
        let path = mount.path("big.bin")
        let whole = try await Poll.until("the file to read whole once bytes move again", timeout: 60, interval: 1) {
            try self.sha1(path) == expected ? true : nil
        }
        XCTAssertTrue(whole)
    }

    func testAnInterruptedCatOfAStalledDownloadReturnsAtOnce() async throws {
        let seed = try SeedTree.make(texts: [:], largeFiles: ["big.bin": 3 << 20])
        let mount = try await mountWithLog(seed: seed, options: ["cache=off"])  // stall_timeout stays 30 s
        XCTAssertTrue(try succeed(["ls", mount.mountpoint.path]).contains("big.bin"))
        try api.addFault(["path_prefix": "/dl/", "bandwidth_bytes_per_second": 1])

        let started = Date()
        // The test runner's children inherit a signal mask that blocks SIGINT: unblock it for cat, as a shell's would be.
        let unblocked = "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execvp(sys.argv[1], sys.argv[1:])"
        let interrupted = try Shell.run(
            ["python3", "-c", unblocked, "timeout", "-s", "INT", "1", "cat", mount.path("big.bin")], timeout: 60)
        let took = Date().timeIntervalSince(started)
        XCTAssertEqual(interrupted.status, 124, "timeout reports that it interrupted cat: \(interrupted.stderr)")
        XCTAssertLessThan(took, 1 + 2, "SIGINT ends cat within a second or two of its sending, took \(took) s")
    }

    // MARK: mount start

    /// Mounts boxsim (already started, faults set) on a fresh folder; returns the mount command's result.
    private func mountStarted(_ sim: BoxSimProcess, options: [String] = []) throws -> (CommandResult, Double) {
        let mountpoint = FileManager.default.temporaryDirectory.appendingPathComponent("boxfs-hang-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: mountpoint, withIntermediateDirectories: true)
        temporaryDirectories.append(mountpoint)
        addTeardownBlock { _ = try? Shell.run(["fusermount3", "-u", "-z", mountpoint.path]) }
        let started = Date()
        let result = try MountFixture.runMount(
            source: "box:", mountpoint: mountpoint.path,
            options: ["endpoint=\(sim.baseURL)", "cache_dir=\(mountpoint.path)-cache"] + options, token: sim.developerToken)
        temporaryDirectories.append(URL(fileURLWithPath: mountpoint.path + "-cache"))
        return (result, Date().timeIntervalSince(started))
    }

    func testAMountWhoseServerIsSlowToAnswerSaysWhatItWaitsFor() async throws {
        let sim = try await BoxSimProcess.start(seed: try SeedTree.make(texts: ["a.txt": "a\n"]))
        boxsim = sim
        try api.addFault(["path_prefix": "/2.0/users/me", "latency_ms": 8000, "count": 1])
        let (result, _) = try mountStarted(sim)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(
            result.stderr.contains("still waiting for \(sim.baseURL) to answer (signing in and finding the folder to mount)"),
            "a slow start says what it waits for: \(result.stderr)")
    }

    func testAnAPICallThatNeverAnswersIsTriedAgainAfterTheStallTimeout() async throws {
        let sim = try await BoxSimProcess.start(seed: try SeedTree.make(texts: ["a.txt": "a\n"]))
        boxsim = sim
        // The first sign-in request never answers: with stall_timeout=2 it is given up and sent again.
        try api.addFault(["path_prefix": "/2.0/users/me", "latency_ms": 600_000, "count": 1])
        let (result, took) = try mountStarted(sim, options: ["stall_timeout=2"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertLessThan(took, 2 + 8, "the hung request is dropped after stall_timeout (2 s) and retried, took \(took) s")
        // boxsim logs a request when it is answered: the hung one never is, the one sent again is.
        let signIns = try sim.requestLog().filter { $0.path == "/2.0/users/me" && $0.status == 200 }
        XCTAssertEqual(signIns.count, 1, "the request sent again was answered: \(signIns)")
    }
}

/// A command started in the background, so a test can signal it while it waits in the filesystem.
final class Spawned: @unchecked Sendable {
    // @unchecked: `process` is only read after start; Foundation's Process is thread-safe for these calls.
    private let process = Process()
    private let outURL: URL
    private let errURL: URL

    init(_ arguments: [String]) throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("spawned-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        outURL = work.appendingPathComponent("out")
        errURL = work.appendingPathComponent("err")
        FileManager.default.createFile(atPath: outURL.path, contents: nil)
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["LC_ALL"] = "C"
        process.environment = environment
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try? out.close()
        try? err.close()
    }

    deinit {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: outURL.deletingLastPathComponent())
    }

    var pid: Int32 { process.processIdentifier }

    func kill(_ signal: Int32) { Foundation.kill(pid, signal) }

    /// Exited and reaped: no longer running and no longer in /proc.
    var isGone: Bool { !process.isRunning && !FileManager.default.fileExists(atPath: "/proc/\(pid)") }

    var status: Int32 { process.terminationStatus }
    var stdout: String { (try? String(contentsOf: outURL, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: errURL, encoding: .utf8)) ?? "" }

    /// The kernel function the process sleeps in (`/proc/PID/wchan`).
    var waitChannel: String { (try? String(contentsOfFile: "/proc/\(pid)/wchan", encoding: .utf8)) ?? "" }

    /// Waits until the process sleeps in a FUSE request (the daemon has it and has not answered).
    func waitUntilBlockedInFUSE(timeout: Double = 20) async throws {
        try await Poll.until("process \(pid) to wait in a FUSE request", timeout: timeout, interval: 0.02) {
            waitChannel.contains("fuse") || waitChannel.contains("request_wait_answer") ? true : nil
        }
    }
}
