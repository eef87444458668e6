import BoxTestSupport
import Foundation
import XCTest

/// The control API's fault injection: error shares, 429 bursts, latency, cuts mid-body, bandwidth caps.
final class FaultInjectionTests: XCTestCase {
    func testErrorStatusAnd429BurstAreAnsweredThenStop() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let rule = try fixture.postJSON("/_control/faults", ["path_prefix": "/2.0/users/me", "burst_429": 2,
                                                             "retry_after": 7])
        XCTAssertEqual(rule.status, 201, rule.text)
        for _ in 0..<2 {
            let limited = try fixture.get("/2.0/users/me")
            XCTAssertEqual(limited.status, 429)
            XCTAssertEqual(limited.headers["retry-after"], "7")
            XCTAssertEqual(try limited.json()["code"] as? String, "rate_limit_exceeded")
        }
        XCTAssertEqual(try fixture.get("/2.0/users/me").status, 200, "the burst is over")

        _ = try fixture.postJSON("/_control/faults", ["path_prefix": "/2.0/folders", "error_status": 503,
                                                      "count": 1])
        XCTAssertEqual(try fixture.get("/2.0/folders/0").status, 503)
        XCTAssertEqual(try fixture.get("/2.0/folders/0").status, 200, "count: 1 applies once")
        XCTAssertEqual(try fixture.sim.requestLog().filter { $0.status == 503 }.count, 1, "faults are logged")

        _ = try fixture.postJSON("/_control/faults", ["path_prefix": "/2.0/folders", "error_status": 500,
                                                      "skip": 2, "count": 1])
        let statuses = try (0..<4).map { _ in try fixture.get("/2.0/folders/0").status }
        XCTAssertEqual(statuses, [200, 200, 500, 200], "skip: 2 lets two pass, then count: 1 applies once")
    }

    func testLatencyAndClearing() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        _ = try fixture.postJSON("/_control/faults", ["path_prefix": "/2.0/users", "latency_ms": 400])
        let started = Date()
        XCTAssertEqual(try fixture.get("/2.0/users/me").status, 200)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.4)
        XCTAssertEqual(try Curl.run(fixture.sim.baseURL + "/_control/faults", method: "DELETE").status, 204)
        let listed = try Curl.run(fixture.sim.baseURL + "/_control/faults").json()
        XCTAssertEqual((listed["entries"] as? [Any])?.count, 0)
    }

    func testConnectionCutMidBodyAndBandwidthCap() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let fileID = try fixture.id(of: "big.bin")
        let location = try XCTUnwrap(try fixture.get("/2.0/files/\(fileID)/content").headers["location"])
        _ = try fixture.postJSON("/_control/faults", ["path_prefix": "/dl/", "cut_after_bytes": 100_000, "count": 1])
        XCTAssertThrowsError(try Curl.run(location), "curl reports the short body")
        let cut = try XCTUnwrap(try fixture.sim.requestLog().last { $0.path.hasPrefix("/dl/") })
        XCTAssertEqual(cut.bytesSent, 100_000)

        _ = try fixture.postJSON("/_control/faults", ["path_prefix": "/dl/", "bandwidth_bytes_per_second": 1_000_000,
                                                      "count": 1])
        let started = Date()
        let slow = try Curl.run(location, headers: ["Range": "bytes=0-1499999"])
        XCTAssertEqual(slow.body.count, 1_500_000)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 1.3, "1.5 MB at 1 MB/s")
    }
}
