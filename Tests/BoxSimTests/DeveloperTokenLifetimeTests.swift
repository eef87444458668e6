import BoxTestSupport
import Foundation
import XCTest

/// `--developer-token-lifetime`: the developer token expires like Box's (401 with Box's empty body and
/// `WWW-Authenticate`), and a new start on the same data directory issues it afresh.
final class DeveloperTokenLifetimeTests: XCTestCase {
    func testDeveloperTokenAnswers401AfterItsLifetime() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("boxsim-devtoken-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        var sim = try await BoxSimProcess.start(extraArgs: ["--developer-token-lifetime", "2"], dataDirectory: data)
        defer { sim.stop() }
        XCTAssertEqual(try Curl.run(sim.baseURL + "/2.0/users/me", token: sim.developerToken).status, 200)
        try await Task.sleep(nanoseconds: 3_200_000_000)
        let expired = try Curl.run(sim.baseURL + "/2.0/users/me", token: sim.developerToken)
        XCTAssertEqual(expired.status, 401)
        XCTAssertTrue(expired.body.isEmpty)
        XCTAssertEqual(expired.headers["www-authenticate"], "Bearer realm=\"Service\", error=\"invalid_token\", "
                       + "error_description=\"The access token provided is invalid.\"")
        sim.stop()

        sim = try await BoxSimProcess.start(extraArgs: ["--developer-token-lifetime", "2"], dataDirectory: data)
        XCTAssertEqual(try Curl.run(sim.baseURL + "/2.0/users/me", token: sim.developerToken).status, 200,
                       "each start generates the token anew")
    }

    func testDefaultLifetimeIsBoxsSixtyMinutes() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        XCTAssertEqual(try fixture.get("/2.0/users/me").status, 200)
        let lifetime = try expiresIn(fixture.sim)
        XCTAssertEqual(lifetime, 3600, accuracy: 5)
    }

    /// Seconds until the developer token expires, read from boxsim's store (python3's sqlite3 module, read-only).
    private func expiresIn(_ sim: BoxSimProcess) throws -> Double {
        let database = sim.dataDirectory.appendingPathComponent("boxsim.sqlite").path
        let script = """
            import sqlite3, sys, time
            db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
            row = db.execute("SELECT expires_at FROM token WHERE token = ?", (sys.argv[2],)).fetchone()
            print(row[0] - time.time())
            """
        let output = try Curl.runProcess("/usr/bin/env", ["python3", "-c", script, database, sim.developerToken])
        return try XCTUnwrap(Double(output.trimmingCharacters(in: .whitespacesAndNewlines)), output)
    }
}
