import BoxTestSupport
import Foundation
import XCTest

/// A file descriptor the test process keeps open on a mount, as an editor, a logger or a build tool does while
/// other things happen to the file. Closed by `close()` or, at the latest, when released.
final class HeldFile {
    private var descriptor: Int32
    let path: String

    init(_ path: String, flags: Int32) throws {
        self.path = path
        descriptor = open(path, flags, 0o644)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    deinit { if descriptor >= 0 { _ = Glibc.close(descriptor) } }

    /// Writes all of `text` (at the end when opened with O_APPEND).
    func write(_ text: String) throws {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            bytes = bytes.dropFirst(count)
        }
    }

    /// Writes all of `data` at `offset`.
    func pwrite(_ data: Data, at offset: Int) throws {
        let count = data.withUnsafeBytes { Glibc.pwrite(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
        guard count == data.count else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// Up to `count` bytes at `offset` (fewer at the end of the file).
    func pread(at offset: Int, count: Int) throws -> Data {
        var buffer = [UInt8](repeating: 0, count: count)
        let got = buffer.withUnsafeMutableBytes { Glibc.pread(descriptor, $0.baseAddress, count, off_t(offset)) }
        guard got >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return Data(buffer[..<got])
    }

    func close() throws {
        let result = Glibc.close(descriptor)
        descriptor = -1
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }
}

/// Helpers of the write-race tests: status, fault bookkeeping and appends.
extension WriteRaceTests {
    /// Writes `text` to the new file `source`, has Box hold its first upload for `latency` ms, adds `faults` for
    /// what follows, renames the file to `destination` while that upload is on the wire, and waits until Box has
    /// answered the upload (it lands under the old name).
    func renameDuringFirstUpload(_ text: String, from source: String, to destination: String, in mount: MountFixture,
                                 latency: Int, faults: [[String: Any]] = []) async throws {
        let upload = try api.addFault(["path_prefix": UploadPaths.newFile, "method": "POST", "latency_ms": latency,
                                       "count": 1])
        try write(text, to: mount.path(source))
        try await waitUntilUsed(fault: upload, timeout: 30)
        for fault in faults { try api.addFault(fault) }
        try succeed(["mv", mount.path(source), mount.path(destination)])
        try await waitForAnswers("POST", UploadPaths.newFile, status: 201)
    }

    /// Writes `text` to the new file `relative` and returns once its first upload is on the wire, held by Box for
    /// `latency` ms.
    func writeNewFile(_ text: String, to relative: String, in mount: MountFixture, holdingItsUploadFor latency: Int)
        async throws
    {
        let upload = try api.addFault(["path_prefix": UploadPaths.newFile, "method": "POST", "latency_ms": latency,
                                       "count": 1])
        try write(text, to: mount.path(relative))
        try await waitUntilUsed(fault: upload)
    }

    func uploads(_ status: [String: Any]) -> [[String: Any]] { status["uploads"] as? [[String: Any]] ?? [] }

    func recentErrors(_ status: [String: Any]) -> [[String: Any]] { status["recent_errors"] as? [[String: Any]] ?? [] }

    /// Waits until the mount has no upload left (pending 0), or one is parked; asserts that none is parked and
    /// answers the last status.
    @discardableResult
    func waitUntilSettled(_ mount: MountFixture, timeout: Double = 60,
                          file: StaticString = #filePath, line: UInt = #line) async throws -> [String: Any] {
        let status = try await Poll.until("every upload to finish or park", timeout: timeout, interval: 0.1) {
            let json = try self.statusJSON(mount)
            let parked = self.uploads(json).contains { $0["state"] as? String == "parked" }
            return parked || (json["pending"] as? NSNumber)?.intValue == 0 ? json : nil
        }
        let parked = uploads(status).filter { $0["state"] as? String == "parked" }
        XCTAssertTrue(parked.isEmpty, "uploads parked: \(parked)", file: file, line: line)
        return status
    }

    /// Whether boxsim still has the fault rule `id` (a rule with a `count` goes once that many requests met it).
    func faultIsPending(_ id: Int) throws -> Bool {
        let rules = try api.call("GET", "/_control/faults")["entries"] as? [[String: Any]] ?? []
        return rules.contains { ($0["id"] as? NSNumber)?.intValue == id }
    }

    /// Waits until the fault rule `id` (with `count: 1`) is used: the request it holds has reached boxsim.
    func waitUntilUsed(fault id: Int, timeout: Double = 30) async throws {
        try await Poll.until("fault rule \(id) to be used", timeout: timeout, interval: 0.02) {
            try self.faultIsPending(id) ? nil : true
        }
    }

    /// Waits until boxsim has answered `count` requests `method path` (a pattern for `matching`) with `status`.
    @discardableResult
    func waitForAnswers(_ method: String, _ path: String, status: Int, count: Int = 1,
                        timeout: Double = 30) async throws -> [LoggedRequest] {
        try await Poll.until("\(count) × \(status) to \(method) \(path)", timeout: timeout, interval: 0.02) {
            let answered = try self.requests().matching(method, path).filter { $0.status == status }
            return answered.count >= count ? answered : nil
        }
    }

    /// Status shows no upload at all: nothing pending, parked or failed.
    func assertNothingLeftToSend(_ mount: MountFixture,
                                 file: StaticString = #filePath, line: UInt = #line) async throws {
        let status = try await waitUntilSettled(mount, timeout: 30, file: file, line: line)
        XCTAssertTrue(uploads(status).isEmpty, "\(status)", file: file, line: line)
        XCTAssertTrue(recentErrors(status).isEmpty, "\(status)", file: file, line: line)
    }
}
