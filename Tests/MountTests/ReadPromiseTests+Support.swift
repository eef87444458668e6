import BoxTestSupport
import Foundation
import XCTest

/// Helpers of `ReadPromiseTests`: temp folders, daemon logs, Box as another client, and the request log's
/// download ranges.
extension ReadPromiseTests {
    /// A temp folder removed by `tearDown`, after the mount is gone (teardown blocks would run while the daemon
    /// still uses it).
    func makeTemporaryDirectory(_ prefix: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        temporaryDirectories.append(url)
        return url
    }

    /// Mounts `seed` with a daemon log file of its own (printed if the test fails); answers the mount and the log.
    func mountWithLogFile(seed: URL, options: [String] = []) async throws -> (MountFixture, URL) {
        let log = try makeTemporaryDirectory("boxfs-log").appendingPathComponent("boxfs.log")
        daemonLog = log
        return (try await mountBoxSim(seed: seed, options: options + ["log_file=\(log.path)"]), log)
    }

    /// Downloads (`/dl/...`) logged after `sequence`.
    func downloads(after sequence: Int) throws -> [LoggedRequest] {
        try XCTUnwrap(boxsim).requestLog().after(sequence).filter { $0.path.hasPrefix("/dl/") }
    }

    /// The byte ranges (`bytes=a-b`, both included) of `requests`, ordered by where they start.
    func ranges(of requests: [LoggedRequest], file: StaticString = #filePath, line: UInt = #line) -> [Range<Int64>] {
        requests.compactMap { request -> Range<Int64>? in
            guard let text = request.range, text.hasPrefix("bytes=") else {
                XCTFail("download without a range: \(request)", file: file, line: line)
                return nil
            }
            guard let range = request.byteRange else {
                XCTFail("unexpected range \(text)", file: file, line: line)
                return nil
            }
            return range
        }.sorted { $0.lowerBound < $1.lowerBound }
    }

    /// Creates a file on Box in folder `parentID`, as another client would.
    @discardableResult
    func uploadNewFile(named name: String, text: String, parentID: String = "0") throws -> BoxEntry {
        let local = try makeTemporaryDirectory("boxfs-upload").appendingPathComponent(name)
        try Data(text.utf8).write(to: local)
        let attributes = "{\"name\":\"\(name)\",\"parent\":{\"id\":\"\(parentID)\"}}"
        let answer = try api.call("POST", "/api/2.0/files/content", extraArguments: [
            "-H", "Expect:", "-F", "attributes=\(attributes)", "-F", "file=@\(local.path)",
        ])
        return BoxEntry(json: try XCTUnwrap((answer["entries"] as? [[String: Any]])?.first, "\(answer)"))
    }

    /// Where boxsim keeps the bytes of content over 64 KiB with this SHA-1 (docs/BOXSIM.md: `DIR/blobs/ab/<sha1>`).
    func blobPath(sha1: String) throws -> String {
        try XCTUnwrap(boxsim).dataDirectory.appendingPathComponent("blobs")
            .appendingPathComponent(String(sha1.prefix(2))).appendingPathComponent(sha1).path
    }

    /// XORs the byte at `offset` of a file in place (same length, same inode): a disk corruption.
    func flipByte(at offset: UInt64, of path: String) throws {
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: path), "cannot open \(path)")
        defer { try? handle.close() }
        try handle.seek(toOffset: offset)
        let original = try XCTUnwrap(handle.read(upToCount: 1))
        try handle.seek(toOffset: offset)
        try handle.write(contentsOf: Data([original[0] ^ 0x5A]))
        try handle.synchronize()
    }
}
