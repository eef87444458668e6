import BoxAPI
import BoxAuth
import BoxTestSupport
import CurlHTTP
import Foundation
import XCTest

@testable import WriteBack

/// A real `kill -9` in the middle of a chunked upload: the uploader runs in a child process (this test
/// binary, running only `CrashChildTests`), is killed once Box holds some parts, and a new uploader in
/// this process finishes from the journal without sending those parts again.
final class KillNineTests: XCTestCase {
    private var fixture: WriteBackFixture?

    override func tearDown() async throws {
        await fixture?.close()
    }

    func testKilledUploaderIsResumedFromTheJournal() async throws {
        let fixture = try await WriteBackFixture()
        self.fixture = fixture
        try await fixture.inject(["path_prefix": "/api/2.0/files/upload_sessions/", "method": "PUT", "latency_ms": 500])
        let path = try fixture.stagePattern(size: 40 * 1024 * 1024, seed: 99)  // 5 parts
        let journal = try fixture.journal()
        let entry = try journal.record(stagingPath: path, target: .newFile(parentID: "0", name: "killed.bin"),
                                       contentModifiedAt: nil)

        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        child.arguments = ["WriteBackTests.CrashChildTests/testUploadUntilKilled"]
        child.environment = ProcessInfo.processInfo.environment.merging([
            CrashChildTests.journalVariable: fixture.journalDirectory.path,
            CrashChildTests.serverVariable: fixture.sim.baseURL,
            CrashChildTests.tokenVariable: fixture.sim.developerToken,
        ]) { _, new in new }
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        let deadline = ContinuousClock.now + .seconds(60)
        while try (journal.entry(id: entry.id)?.parts.count ?? 0) < 2, child.isRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        XCTAssertEqual(child.terminationReason, .uncaughtSignal, "the child was killed, it did not finish")
        let before = try XCTUnwrap(journal.entry(id: entry.id), "the entry survived the kill")
        XCTAssertGreaterThanOrEqual(before.parts.count, 2)
        let sessionID = try XCTUnwrap(before.session?.id)
        try await Task.sleep(for: .seconds(1))  // a part the child had on the wire lands (or not) first

        let uploader = fixture.uploader(try fixture.journal())
        let found = try await uploader.start()
        XCTAssertEqual(found, 1)
        let events = try await collect(uploader, timeout: 120) { finalItems($0).count == 1 }
        let item = try XCTUnwrap(finalItems(events)[entry.id])
        let remote = try await fixture.remoteSHA1(item.id)
        XCTAssertEqual(remote, try FileDigest.sha1(path: path).hex)
        let stored = try await fixture.logged("/api/2.0/files/upload_sessions/\(sessionID)", method: "PUT")
            .filter { $0.status == 200 }
        XCTAssertEqual(stored.count, 5, "each part stored once across the killed and the new uploader")
        let creates = try await fixture.logged("/api/2.0/files/upload_sessions", method: "POST")
            .filter { !$0.path.hasSuffix("/commit") }
        XCTAssertEqual(creates.count, 1)
    }
}

/// Runs only as the child of `KillNineTests` (skipped otherwise): uploads the journal's entries
/// until it is killed.
final class CrashChildTests: XCTestCase {
    static let journalVariable = "WRITEBACK_CRASH_JOURNAL"
    static let serverVariable = "WRITEBACK_CRASH_SERVER"
    static let tokenVariable = "WRITEBACK_CRASH_TOKEN"

    func testUploadUntilKilled() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let directory = environment[Self.journalVariable], let server = environment[Self.serverVariable],
            let token = environment[Self.tokenVariable]
        else { throw XCTSkip("runs only as the child process of KillNineTests") }
        let http = HTTPClient()
        let client = BoxClient(
            endpoints: BoxEndpoints(serverBase: server), http: http, tokens: StaticTokenProvider(token: token))
        var configuration = UploaderConfiguration.forTests
        configuration.partsInFlight = 1
        let uploader = Uploader(
            journal: try UploadJournal(directory: URL(fileURLWithPath: directory)), client: client,
            configuration: configuration)
        try await uploader.start()
        try await Task.sleep(for: .seconds(120))
        XCTFail("the parent should have killed this process")
    }
}
