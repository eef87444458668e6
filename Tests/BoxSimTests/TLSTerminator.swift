import Foundation
import XCTest

/// `scripts/tls-terminator` in front of a boxsim: HTTPS on a free port with a fresh self-signed certificate for
/// 127.0.0.1, `X-Forwarded-Proto: https` added to every request, as a load balancer in front of boxsim.
final class TLSTerminator {
    let baseURL: String
    /// The certificate to trust (`curl --cacert`).
    let certificate: URL
    private let process: Process
    private let input: Pipe
    private let directory: URL

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/tls-terminator").path

    init(backend: String) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        certificate = directory.appendingPathComponent("cert.pem")
        let key = directory.appendingPathComponent("key.pem")
        _ = try Curl.runProcess("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                                                     "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                                                     "-keyout", key.path, "-out", certificate.path])
        let port = try XCTUnwrap(URL(string: backend)?.port)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.script, certificate.path, key.path, String(port)]
        input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        // The script prints its port once listening.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw FixtureError.missing("tls-terminator port") }
            line.append(chunk)
        }
        baseURL = "https://127.0.0.1:" + String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    /// curl through the terminator, trusting its certificate.
    func curl(_ path: String, token: String?, headers: [String: String] = [:], method: String? = nil,
              extra: [String] = []) throws -> CurlResult {
        try Curl.run(baseURL + path, token: token, headers: headers, method: method,
                     extra: ["--cacert", certificate.path] + extra)
    }
}
