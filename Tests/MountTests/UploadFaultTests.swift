import BoxTestSupport
import Foundation
import XCTest

/// Faults boxsim injects into uploads (5xx answers, 429 bursts, connections cut before the answer arrives) are
/// retried: every file arrives once, byte-exact, with no duplicate and no needless conflicted copy.
final class UploadFaultTests: WriteTestCase {
    /// Copies `count` local files of assorted sizes into `folder` of the mount; answers the local folder.
    func copyFiles(count: Int, into folder: String) throws -> URL {
        let local = try makeTemporaryDirectory("faults")
        for index in 1...count {
            try SeedTree.writePatternFile(at: local.appendingPathComponent("f\(index).bin"), size: 1000 * index * index,
                                          seed: UInt64(index))
        }
        try succeed(["cp", "-r", local.path + "/.", folder])
        return local
    }

    /// Waits until Box's folder at `path` holds exactly the local folder's files.
    func waitForFolder(_ path: String, matching local: URL, timeout: Double = 120) async throws {
        let expected = try TreeManifest.local(local)
        let api = try self.api
        try await Poll.until("Box's \(path) to match \(local.lastPathComponent)", timeout: timeout) {
            try TreeManifest.box(api, folder: path) == expected ? true : nil
        }
    }

    func testServerErrorsOnDirectUploadsAndPartsAreRetried() async throws {
        let mount = try await startAndMount(texts: ["in/.keep": ""])
        let api = try self.api
        try api.addFault(["path_prefix": UploadPaths.newFile, "method": "POST", "error_status": 503, "count": 2])
        try api.addFault(["path_prefix": "/api/2.0/files/upload_sessions/", "method": "PUT", "error_status": 500,
                          "count": 2])
        let small = try localFile(size: 50_000, seed: 61, name: "small.bin")
        let large = try localFile(size: 24 << 20, seed: 62, name: "large.bin")
        try succeed(["cp", small.path, large.path, mount.path("in")])

        try await waitForBox("in/small.bin", sha1: try sha1(small.path))
        try await waitForBox("in/large.bin", sha1: try sha1(large.path), timeout: 120)
        XCTAssertEqual(try boxNames(in: "in"), [".keep", "large.bin", "small.bin"])
        let log = try requests()
        XCTAssertEqual(log.matching("POST", UploadPaths.newFile).filter { $0.status == 503 }.count, 2, log.summary)
        XCTAssertEqual(log.matching("PUT", UploadPaths.part()).filter { $0.status == 500 }.count, 2, log.summary)
        XCTAssertEqual(log.matching("PUT", UploadPaths.part()).succeeded.count, 3, "each 8 MiB part stored once")
    }

    func testABurstOf429IsWaitedOutAndRetried() async throws {
        let mount = try await startAndMount()
        try api.addFault(["path_prefix": "/api/2.0/files", "burst_429": 3, "retry_after": 1])
        try write("rate limited, then accepted\n", to: mount.path("limited.txt"))
        try await waitForBox("limited.txt", text: "rate limited, then accepted\n")
        let log = try requests()
        XCTAssertEqual(log.filter { $0.status == 429 }.count, 3, log.summary)
        XCTAssertEqual(try boxNames(in: ""), ["limited.txt"])
    }

    func testAnAnswerLostAfterBoxStoredTheFileMakesNoDuplicate() async throws {
        // Box stores the file, but the connection drops before the client reads the answer.
        let mount = try await startAndMount()
        try api.addFault(["path_prefix": UploadPaths.newFile, "method": "POST", "cut_after_bytes": 10, "count": 1])
        try write("stored, answer lost\n", to: mount.path("once.txt"))
        try await waitForBox("once.txt", text: "stored, answer lost\n")
        try await unmountAndWait(mount)  // nothing can arrive later
        XCTAssertEqual(try boxNames(in: ""), ["once.txt"], "one file, no copy")
        try assertAnswerWasCut("POST", UploadPaths.newFile)
    }

    func testALostAnswerToANewVersionMakesNoConflictedCopy() async throws {
        let mount = try await startAndMount(texts: ["doc.txt": "version one\n"])
        let original = try XCTUnwrap(try api.entry(at: "doc.txt"))
        try api.addFault(["path_prefix": UploadPaths.newVersion(original.id), "method": "POST", "cut_after_bytes": 10,
                          "count": 1])
        try write("version two\n", to: mount.path("doc.txt"))
        let saved = try await waitForBox("doc.txt", text: "version two\n")
        XCTAssertEqual(saved.id, original.id)
        try await unmountAndWait(mount)  // nothing can arrive later
        XCTAssertEqual(try boxNames(in: ""), ["doc.txt"], "our own version is not mistaken for someone else's")
        try assertAnswerWasCut("POST", UploadPaths.newVersion(original.id))
    }

    func testLostAnswersToAPartAndToTheCommitAreRetried() async throws {
        let mount = try await startAndMount()
        let api = try self.api
        try api.addFault(["path_prefix": "/api/2.0/files/upload_sessions/", "method": "PUT", "cut_after_bytes": 5,
                          "count": 1])
        try api.addFault(["path_prefix": "/api/2.0/files/upload_sessions/", "method": "POST", "cut_after_bytes": 5,
                          "count": 1])
        let large = try localFile(size: 22 << 20, seed: 63)
        try succeed(["cp", large.path, mount.path("large.bin")])
        try await waitForBox("large.bin", sha1: try sha1(large.path), timeout: 120)
        try await unmountAndWait(mount)  // nothing can arrive later
        XCTAssertEqual(try boxNames(in: ""), ["large.bin"])
        try assertAnswerWasCut("PUT", UploadPaths.part())
        try assertAnswerWasCut("POST", UploadPaths.commit())
    }

    func testRandomServerErrorsOverManyUploadsLoseAndDuplicateNothing() async throws {
        let mount = try await startAndMount(texts: ["many/.keep": ""])
        try api.addFault(["path_prefix": "/api/2.0/files", "error_status": 500, "error_rate": 0.3])
        let local = try copyFiles(count: 20, into: mount.path("many"))
        try Data().write(to: local.appendingPathComponent(".keep"))
        try await waitForFolder("many", matching: local, timeout: 180)
        XCTAssertGreaterThan(try requests().filter { $0.status == 500 }.count, 0, "faults were injected")
    }

    /// The request log shows a successful answer to `method path` whose body was cut short (the fault happened).
    func assertAnswerWasCut(_ method: String, _ path: String,
                            file: StaticString = #filePath, line: UInt = #line) throws {
        let log = try requests().matching(method, path)
        XCTAssertTrue(log.contains { (200..<300).contains($0.status) && $0.bytesSent <= 10 },
                      "a cut answer to \(method) \(path)\n\(log.summary)", file: file, line: line)
    }
}
