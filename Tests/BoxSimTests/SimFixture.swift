import BoxTestSupport
import Foundation
import XCTest

/// A running boxsim seeded with a small known tree, plus helpers to call it.
struct SimFixture {
    let sim: BoxSimProcess
    let seed: URL

    static let bigFileSize = 6 * 1024 * 1024 + 123
    /// Names in `many/`, which the paging tests walk: 3 folders and 12 files.
    static let manyFolders = ["dirB", "DirA", "dirC"]
    static let manyFiles = (0..<12).map { String(format: "file%02d.txt", $0) }

    static func start(extraArgs: [String] = []) async throws -> SimFixture {
        var texts = [
            "hello.txt": "hello world\n",
            "docs/a.txt": "alpha\nneedle line\n",
            "docs/sub/deep.txt": "deep\n",
        ]
        for name in manyFiles { texts["many/\(name)"] = "content of \(name)\n" }
        for folder in manyFolders { texts["many/\(folder)/inner.txt"] = "inner\n" }
        let seed = try SeedTree.make(texts: texts, largeFiles: ["big.bin": bigFileSize])
        do {
            return SimFixture(sim: try await BoxSimProcess.start(seed: seed, extraArgs: extraArgs), seed: seed)
        } catch {
            try? FileManager.default.removeItem(at: seed)
            throw error
        }
    }

    func stop() {
        sim.stop()
        try? FileManager.default.removeItem(at: seed)
    }

    /// GET `<base><path>` with the developer token.
    func get(_ path: String, headers: [String: String] = [:]) throws -> CurlResult {
        try Curl.run(sim.baseURL + path, token: sim.developerToken, headers: headers)
    }

    func getJSON(_ path: String) throws -> [String: Any] {
        let result = try get(path)
        XCTAssertEqual(result.status, 200, "GET \(path): \(result.text)")
        return try result.json()
    }

    /// The id of the item at a slash-separated path below the root, found by listing folders.
    func id(of path: String) throws -> String {
        var folder = "0"
        let parts = path.split(separator: "/").map(String.init)
        for (index, name) in parts.enumerated() {
            let listing = try getJSON("/2.0/folders/\(folder)/items?limit=1000")
            let entries = listing["entries"] as? [[String: Any]] ?? []
            guard let entry = entries.first(where: { $0["name"] as? String == name }),
                  let id = entry["id"] as? String else { throw FixtureError.missing(path) }
            if index == parts.count - 1 { return id }
            folder = id
        }
        return folder
    }
}

enum FixtureError: Error { case missing(String) }

extension SimFixture {
    /// POST a JSON body to the control API (or elsewhere) and return the JSON answer.
    func postJSON(_ path: String, _ body: [String: Any], token: String? = nil, method: String = "POST",
                  headers: [String: String] = [:]) throws -> CurlResult {
        let data = try JSONSerialization.data(withJSONObject: body)
        return try Curl.run(sim.baseURL + path, token: token, headers: headers.merging(["Content-Type": "application/json"]) { $1 },
                            method: method, extra: ["--data-binary", String(decoding: data, as: UTF8.self)])
    }

    /// POST an x-www-form-urlencoded body.
    func postForm(_ path: String, _ fields: [String: String], headers: [String: String] = [:]) throws -> CurlResult {
        let extra = fields.sorted { $0.key < $1.key }.flatMap { ["--data-urlencode", "\($0.key)=\($0.value)"] }
        return try Curl.run(sim.baseURL + path, headers: headers, extra: extra)
    }

    /// Creates an app through the control API: (client_id, client_secret, service_account_id, enterprise_id).
    func createApp(redirectURI: String? = nil, publicKeys: [[String: String]] = []) throws -> [String: String] {
        var body: [String: Any] = ["name": "Test App", "public_keys": publicKeys]
        if let redirectURI { body["redirect_uri"] = redirectURI }
        let result = try postJSON("/_control/apps", body)
        XCTAssertEqual(result.status, 201, result.text)
        return try result.json().compactMapValues { $0 as? String }
    }

    /// Creates a managed user through the control API; returns its id.
    func createUser(name: String = "Managed User", kind: String = "user") throws -> String {
        let result = try postJSON("/_control/users", ["name": name, "kind": kind])
        XCTAssertEqual(result.status, 201, result.text)
        return try XCTUnwrap(try result.json()["id"] as? String)
    }
}
