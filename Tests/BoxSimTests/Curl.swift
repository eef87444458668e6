import Foundation

/// Runs the `curl` command line (the product never uses URLSession; tests use real curl over real sockets).
struct CurlResult {
    var status: Int
    /// Lower-cased header names; the last value wins.
    var headers: [String: String]
    var body: Data

    var text: String { String(decoding: body, as: UTF8.self) }

    func json() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw CurlError.notAnObject(text)
        }
        return object
    }
}

enum CurlError: Error {
    case failed(status: Int32, stderr: String)
    case notAnObject(String)
}

enum Curl {
    /// `curl -s` with `arguments`; `token` adds a Bearer Authorization header.
    static func run(_ url: String, token: String? = nil, headers: [String: String] = [:],
                    method: String? = nil, extra: [String] = []) throws -> CurlResult {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let headerFile = work.appendingPathComponent("headers")
        let bodyFile = work.appendingPathComponent("body")
        var arguments = ["-s", "-S", "-g", "-D", headerFile.path, "-o", bodyFile.path, "-w", "%{http_code}"]
        if let token { arguments += ["-H", "Authorization: Bearer \(token)"] }
        for (name, value) in headers { arguments += ["-H", "\(name): \(value)"] }
        if let method { arguments += ["-X", method] }
        arguments += extra + [url]
        let output = try runProcess("/usr/bin/curl", arguments)
        let body = (try? Data(contentsOf: bodyFile)) ?? Data()
        var parsed: [String: String] = [:]
        let headerText = (try? String(contentsOf: headerFile, encoding: .utf8)) ?? ""
        for line in headerText.split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            parsed[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return CurlResult(status: Int(output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, headers: parsed,
                          body: body)
    }

    /// Runs a command and returns its stdout; throws with its stderr when it fails.
    static func runProcess(_ path: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CurlError.failed(status: process.terminationStatus, stderr: String(decoding: stderr, as: UTF8.self))
        }
        return String(decoding: stdout, as: UTF8.self)
    }

    /// SHA-1 (hex) of a local file, from `sha1sum`.
    static func sha1(of url: URL) throws -> String {
        String(try runProcess("/usr/bin/sha1sum", [url.path]).prefix(40))
    }
}
