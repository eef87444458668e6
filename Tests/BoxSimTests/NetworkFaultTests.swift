import BoxTestSupport
import Foundation
import XCTest

/// Fault rules for the network's failures: cut connections (request body, response body, answer lost), stalls,
/// flipped body bytes, and 429 at a rate on every kind of path; each recorded as such in the request log.
final class NetworkFaultTests: XCTestCase {
    private func lastLogged(_ fixture: SimFixture, _ where: @escaping (LoggedRequest) -> Bool) async throws
        -> LoggedRequest {
        try await Poll.until("the request in the log", timeout: 20) { try fixture.sim.requestLog().last(where: `where`) }
    }

    func testCutInTheRequestBodyDropsTheUploadWithoutAnswer() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let api = BoxSimAPI(fixture.sim)
        try api.cutConnections(pathPrefix: "/api/2.0/files/content", method: "POST", phase: .requestBody,
                               afterBytes: 300_000, count: 1)
        let file = try UploadFiles.random(size: 2_000_000)
        defer { try? FileManager.default.removeItem(at: file) }
        XCTAssertThrowsError(try fixture.upload(attributes: ["name": "cut.bin", "parent": ["id": "0"]], file: file),
                             "no answer")
        let logged = try await lastLogged(fixture) { $0.path == "/api/2.0/files/content" }
        XCTAssertEqual(logged.fault, "cut_request_body")
        XCTAssertEqual(logged.status, 0, "nothing was answered")
        XCTAssertFalse(try api.items(in: "0").contains { $0.name == "cut.bin" }, "the upload was not applied")
        let again = try fixture.upload(attributes: ["name": "cut.bin", "parent": ["id": "0"]], file: file)
        XCTAssertEqual(again.status, 201, "count: 1 applies once")
    }

    func testCutAfterHandlingAppliesTheChangeButLosesTheAnswer() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let api = BoxSimAPI(fixture.sim)
        try api.cutConnections(pathPrefix: "/api/2.0/files/content", phase: .afterHandling, count: 1)
        let file = try UploadFiles.random(size: 10_000)
        defer { try? FileManager.default.removeItem(at: file) }
        XCTAssertThrowsError(try fixture.upload(attributes: ["name": "lost.bin", "parent": ["id": "0"]], file: file))
        let logged = try await lastLogged(fixture) { $0.path == "/api/2.0/files/content" }
        XCTAssertEqual(logged.fault, "cut_after_handling")
        XCTAssertEqual(logged.status, 201, "the status the lost answer had")
        XCTAssertEqual(logged.bytesSent, 0)
        let entry = try XCTUnwrap(try api.items(in: "0").first { $0.name == "lost.bin" }, "the upload was applied")
        XCTAssertEqual(entry.sha1, try Curl.sha1(of: file))
    }

    func testCutRateDropsSomeDownloadsMidBodyAndLogsWhatWasSent() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let fileID = try fixture.id(of: "big.bin")
        let location = try XCTUnwrap(try fixture.get("/2.0/files/\(fileID)/content").headers["location"])
        try BoxSimAPI(fixture.sim).cutConnections(pathPrefix: "/dl/", rate: 0.5, phase: .responseBody)
        var failed = 0
        for _ in 0..<24 {
            if (try? Curl.run(location, headers: ["Range": "bytes=0-199999"])) == nil { failed += 1 }
        }
        XCTAssert((1..<24).contains(failed), "about half are cut (\(failed) of 24)")
        let downloads = try await Poll.until("24 logged downloads") {
            let logged = try fixture.sim.requestLog().filter { $0.path.hasPrefix("/dl/") }
            return logged.count == 24 ? logged : nil
        }
        let cut = downloads.filter { $0.fault == "cut_response_body" }
        XCTAssertEqual(cut.count, failed)
        for entry in cut { XCTAssertLessThan(entry.bytesSent, 200_000, "bytes_sent is what went out") }
        XCTAssert(downloads.filter { $0.fault == nil }.allSatisfy { $0.bytesSent == 200_000 })
    }

    func testStallBeforeTheAnswerUntilTheClientGivesUpOrForAWhile() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let api = BoxSimAPI(fixture.sim)
        try api.stallResponses(pathPrefix: "/2.0/users/me", count: 1)
        XCTAssertThrowsError(try Curl.run(fixture.sim.baseURL + "/2.0/users/me", token: fixture.sim.developerToken,
                                          extra: ["--max-time", "1"]), "curl gives up")
        let logged = try await lastLogged(fixture) { $0.path == "/2.0/users/me" }
        XCTAssertEqual(logged.fault, "stall")
        XCTAssertEqual(logged.status, 0, "no answer")

        try api.stallResponses(pathPrefix: "/2.0/users/me", milliseconds: 500, count: 1)
        let started = Date()
        XCTAssertEqual(try fixture.get("/2.0/users/me").status, 200, "the answer comes after the stall")
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.5)
    }

    func testStallAfterSomeBodyBytesKeepsTheRestBack() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let fileID = try fixture.id(of: "big.bin")
        let location = try XCTUnwrap(try fixture.get("/2.0/files/\(fileID)/content").headers["location"])
        try BoxSimAPI(fixture.sim).stallResponses(pathPrefix: "/dl/", afterBytes: 100_000, count: 1)
        XCTAssertThrowsError(try Curl.run(location, extra: ["--max-time", "2"]), "curl gives up")
        let logged = try await lastLogged(fixture) { $0.path.hasPrefix("/dl/") }
        XCTAssertEqual(logged.fault, "stall")
        XCTAssertEqual(logged.status, 200)
        XCTAssertEqual(logged.bytesSent, 100_000, "what went out before the stall, not the whole file")
    }

    func testCorruptFlipsOneByteOfA200Or206Body() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let fileID = try fixture.id(of: "big.bin")
        let location = try XCTUnwrap(try fixture.get("/2.0/files/\(fileID)/content").headers["location"])
        let original = try Data(contentsOf: fixture.seed.appendingPathComponent("big.bin"))
        let api = BoxSimAPI(fixture.sim)
        try api.corruptBodies(atByte: 1000, count: 1)
        let whole = try Curl.run(location)
        XCTAssertEqual(whole.status, 200)
        XCTAssertEqual(whole.body.count, original.count, "the length is right")
        XCTAssertEqual(Self.differences(whole.body, original), [1000])
        XCTAssertEqual(whole.body[1000], original[1000] ^ 0xFF)

        try api.corruptBodies(count: 1)
        let range = try Curl.run(location, headers: ["Range": "bytes=5000-69999"])
        XCTAssertEqual(range.status, 206)
        XCTAssertEqual(Self.differences(range.body, original[5000..<70000]).count, 1, "one random byte flipped")
        XCTAssertEqual(try Curl.run(location).body, original, "count: 1 applied once")
        let corrupted = try fixture.sim.requestLog().filter { $0.path.hasPrefix("/dl/") }.map(\.fault)
        XCTAssertEqual(corrupted, ["corrupt", "corrupt", nil])
    }

    func testRateLimitAtARateWithRetryAfterOnUploadsDownloadsAndAPICalls() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let api = BoxSimAPI(fixture.sim)
        let fileID = try fixture.id(of: "big.bin")
        let location = try XCTUnwrap(try fixture.get("/2.0/files/\(fileID)/content").headers["location"])
        let file = try UploadFiles.random(size: 3_000_000)
        defer { try? FileManager.default.removeItem(at: file) }

        try api.rateLimit(retryAfter: 3)
        let answers = [
            try Curl.run(location),
            try fixture.upload(attributes: ["name": "limited.bin", "parent": ["id": "0"]], file: file),
            try fixture.postJSON("/api/2.0/files/upload_sessions", ["folder_id": "0", "file_name": "s.bin",
                                                                     "file_size": 30_000_000],
                                 token: fixture.sim.developerToken),
            try fixture.get("/2.0/folders/0/items"),
        ]
        for answer in answers {
            XCTAssertEqual(answer.status, 429, answer.text)
            XCTAssertEqual(answer.headers["retry-after"], "3")
            XCTAssertEqual(try answer.json()["code"] as? String, "rate_limit_exceeded")
        }
        try api.clearFaults()
        XCTAssertFalse(try api.items(in: "0").contains { $0.name == "limited.bin" }, "a limited upload is not applied")

        try api.rateLimit(pathPrefix: "/dl/", rate: 0.5)
        var statuses: [Int] = []
        for _ in 0..<24 { statuses.append(try Curl.run(location, headers: ["Range": "bytes=0-9"]).status) }
        XCTAssertEqual(Set(statuses), [206, 429], "a share is limited: \(statuses)")
    }

    func testAClientThatLeavesEarlyIsLoggedWithTheBytesItWasSentNotTheWholeFile() async throws {
        let seed = try SeedTree.make(texts: [:], largeFiles: ["huge.bin": 64 << 20])
        defer { try? FileManager.default.removeItem(at: seed) }
        let sim = try await BoxSimProcess.start(seed: seed)
        defer { sim.stop() }
        let fileID = try XCTUnwrap(try BoxSimAPI(sim).items(in: "0").first { $0.name == "huge.bin" }?.id)
        let location = try XCTUnwrap(try Curl.run(sim.baseURL + "/2.0/files/\(fileID)/content",
                                                  token: sim.developerToken).headers["location"])
        XCTAssertThrowsError(try Curl.run(location, extra: ["--limit-rate", "1M", "--max-time", "1"]),
                             "curl gives up after a second at 1 MB/s")
        let logged = try await Poll.until("the download in the log", timeout: 20) {
            try sim.requestLog().last { $0.path.hasPrefix("/dl/") }
        }
        XCTAssertEqual(logged.status, 200)
        XCTAssertGreaterThan(logged.bytesSent, 0)
        XCTAssertLessThan(logged.bytesSent, 32 << 20, "what went out before the client left, not the whole file")
    }

    /// The offsets where two byte sequences differ (of the same length).
    static func differences<A: Collection<UInt8>, B: Collection<UInt8>>(_ a: A, _ b: B) -> [Int] {
        zip(a, b).enumerated().compactMap { $0.element.0 == $0.element.1 ? nil : $0.offset }
    }
}
