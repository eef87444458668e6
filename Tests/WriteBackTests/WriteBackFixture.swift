import BoxAPI
import BoxAuth
import BoxTestSupport
import CurlHTTP
import Foundation
import XCTest

@testable import WriteBack

/// A real boxsim process, a Box client for it, a journal directory and staging files; cleaned up by `close()`.
final class WriteBackFixture {
    let sim: BoxSimProcess
    let http = HTTPClient()
    let client: BoxClient
    let directory: URL
    private var uploaders: [Uploader] = []

    init() async throws {
        sim = try await BoxSimProcess.start()
        client = BoxClient(
            endpoints: BoxEndpoints(serverBase: sim.baseURL), http: http,
            tokens: StaticTokenProvider(token: sim.developerToken),
            retryPolicy: RetryPolicy(maxAttempts: 3, baseDelay: 0.05, maxDelay: 0.2, maxTotalWait: 5))
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("writeback-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func close() async {
        for uploader in uploaders { await uploader.shutdown() }
        http.shutdown()
        sim.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    var journalDirectory: URL { directory.appendingPathComponent("journal") }

    func journal() throws -> UploadJournal { try UploadJournal(directory: journalDirectory) }

    func uploader(_ journal: UploadJournal, _ configuration: UploaderConfiguration = .forTests) -> Uploader {
        let uploader = Uploader(journal: journal, client: client, configuration: configuration)
        uploaders.append(uploader)
        return uploader
    }

    /// A staging file with `data`.
    func stage(_ data: Data, name: String = UUID().uuidString) throws -> String {
        let url = directory.appendingPathComponent("staging-\(name)")
        try data.write(to: url)
        return url.path
    }

    /// A staging file of `size` deterministic pseudo-random bytes.
    func stagePattern(size: Int, seed: UInt64) throws -> String {
        let url = directory.appendingPathComponent("staging-\(UUID().uuidString)")
        try SeedTree.writePatternFile(at: url, size: size, seed: seed)
        return url.path
    }

    /// SHA-1 of what Box serves for the file.
    func remoteSHA1(_ fileID: String) async throws -> String {
        FileDigest.sha1(try await client.download(fileID: fileID, range: nil)).hex
    }

    /// `POST /_control/faults`.
    func inject(_ rule: [String: Any]) async throws {
        try await control(.post, "/_control/faults", rule, expect: 201)
    }

    func control(_ method: HTTPMethod, _ path: String, _ body: [String: Any], expect: Int) async throws {
        let data = try JSONSerialization.data(withJSONObject: body)
        let response = try await http.send(HTTPRequest(
            method: method, url: sim.baseURL + path, headers: ["Content-Type": "application/json"], body: .data(data)))
        XCTAssertEqual(response.status, expect, String(decoding: response.body, as: UTF8.self))
    }

    /// Logged requests whose path starts with `prefix` (and method, if given), once the log has been
    /// still for 300 ms: boxsim appends an entry only after its response has gone out, which can be a
    /// moment after the client has it.
    func logged(_ prefix: String, method: String? = nil) async throws -> [LoggedRequest] {
        var last = -1
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            let count = try sim.requestLog().count
            if count == last { break }
            last = count
            try await Task.sleep(for: .milliseconds(300))
        }
        return try sim.requestLog().filter { $0.path.hasPrefix(prefix) && (method == nil || $0.method == method) }
    }
}

extension UploaderConfiguration {
    /// Short delays and backoffs so tests finish quickly.
    static let forTests = UploaderConfiguration(
        writeBackDelay: 0.1, partsInFlight: 4, backoffBase: 0.1, backoffMax: 1, parkInterval: 600)
}

/// Collects an uploader's events until a condition holds.
func collect(
    _ uploader: Uploader, timeout: Double = 60, until done: @escaping @Sendable ([UploaderEvent]) -> Bool
) async throws -> [UploaderEvent] {
    try await withThrowingTaskGroup(of: [UploaderEvent]?.self) { group in
        group.addTask {
            var seen: [UploaderEvent] = []
            for await event in uploader.events {
                seen.append(event)
                if done(seen) { return seen }
            }
            return seen
        }
        group.addTask {
            try await Task.sleep(for: .seconds(timeout))
            return nil
        }
        let first = try await group.next()!
        group.cancelAll()
        guard let events = first else { throw WriteBackError("no expected events within \(timeout) s") }
        return events
    }
}

/// The final items reported, by entry id.
func finalItems(_ events: [UploaderEvent]) -> [Int64: BoxItem] {
    var items: [Int64: BoxItem] = [:]
    for case .uploaded(let id, let item, _, _, true) in events { items[id] = item }
    return items
}
