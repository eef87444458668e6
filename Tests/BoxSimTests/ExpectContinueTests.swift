import BoxTestSupport
import Foundation
import XCTest

/// `Expect: 100-continue` (curl sends it for multipart uploads and bodies over 1 MiB, then waits for the interim
/// answer before sending the body): boxsim answers `100 Continue` at once.
final class ExpectContinueTests: XCTestCase {
    /// Runs `curl -v` with a 20 s wait for 100 Continue; returns (status, seconds taken, verbose output).
    private func curlExpecting100(_ arguments: [String]) throws -> (status: Int, seconds: Double, verbose: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-v", "-o", "/dev/null", "-w", "%{http_code} %{time_total}", "--expect100-timeout", "20",
                             "-H", "Expect: 100-continue"] + arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let fields = stdout.split(separator: " ")
        return (Int(fields.first ?? "") ?? 0, Double(fields.last ?? "") ?? .infinity, stderr)
    }

    func testUploadsGet100ContinueAtOnce() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let local = try UploadFiles.random(size: 2 * 1024 * 1024)
        defer { try? FileManager.default.removeItem(at: local) }
        let token = "Authorization: Bearer \(fixture.sim.developerToken)"

        let direct = try curlExpecting100(["-H", token, "--form-string", #"attributes={"name":"e.bin","parent":{"id":"0"}}"#,
                                           "-F", "file=@\(local.path);filename=\"\"",
                                           fixture.sim.baseURL + "/api/2.0/files/content"])
        XCTAssertEqual(direct.status, 201)
        XCTAssertTrue(direct.verbose.contains("< HTTP/1.1 100 Continue"), direct.verbose)
        XCTAssertLessThan(direct.seconds, 5, "the body went without waiting out the 20 s expect timeout")

        let uploaded = try fixture.id(of: "e.bin")
        let denied = try curlExpecting100(["-X", "POST", "--data-binary", "@\(local.path)", "-H", "Authorization: Bearer no",
                                           fixture.sim.baseURL + "/api/2.0/files/\(uploaded)/content"])
        XCTAssertEqual(denied.status, 401, "a refused request still gets its final answer")
        XCTAssertTrue(fixture.sim.isRunning)
        XCTAssertEqual(try fixture.get("/2.0/users/me").status, 200)
    }
}
