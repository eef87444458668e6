import BoxTestSupport
import Foundation
import XCTest

/// Shared set-up for tests that mount boxsim: a seed tree, a boxsim process and a mount, all torn
/// down even when the test fails (the fixture unmounts in `tearDown` and in its own deinit).
class MountTestCase: XCTestCase {
    var boxsim: BoxSimProcess?
    var mount: MountFixture?

    /// Starts boxsim with `seed` and mounts `source` of it.
    func mountBoxSim(
        seed: URL, source: String = "box:", options: [String] = [], environment: [String: String] = [:]
    ) async throws -> MountFixture {
        let sim = try await BoxSimProcess.start(seed: seed)
        boxsim = sim
        let fixture = try MountFixture.mount(sim, source: source, options: options, environment: environment)
        mount = fixture
        return fixture
    }

    override func tearDown() async throws {
        mount?.unmount()
        mount = nil
        boxsim?.stop()
        boxsim = nil
        SeedTree.removeAll()
        try await super.tearDown()
    }

    /// Runs a command and fails the test (with its stderr) if it does not succeed.
    @discardableResult
    func succeed(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try Shell.run(arguments)
        XCTAssertEqual(result.status, 0, "\(arguments.joined(separator: " ")) failed: \(result.stderr)", file: file, line: line)
        return result.stdout
    }

    func sha1(_ path: String) throws -> String {
        let output = try Shell.run(["sha1sum", path])
        return String(output.stdout.prefix(40))
    }

    /// Body bytes boxsim sent for requests logged after `sequence`, on the download host (`/dl/...`).
    func downloadedBytes(after sequence: Int, in sim: BoxSimProcess) throws -> Int64 {
        try sim.requestLog().filter { $0.seq > sequence && $0.path.hasPrefix("/dl/") }.reduce(0) { $0 + $1.bytesSent }
    }

    /// Box as another client sees it.
    var api: BoxSimAPI { get throws { BoxSimAPI(try XCTUnwrap(boxsim, "boxsim is not started")) } }

    func lastSequence(_ sim: BoxSimProcess) throws -> Int {
        try sim.requestLog().last?.seq ?? 0
    }
}
