import BoxTestSupport
import Foundation
import XCTest

/// Small helpers for talking to a boxsim process with curl (the way a user would check things).
enum Sim {
    /// `curl` with a JSON answer; the body travels on stdin, so no secret sits in curl's arguments.
    static func json(
        _ method: String, _ url: String, token: String? = nil, body: String? = nil, headers: [String] = []
    ) throws -> (status: Int, object: [String: Any]) {
        var script = "curl -sS -w '\\n%{http_code}' -X \(method) '\(url)' -H 'Content-Type: application/json'"
        for header in headers { script += " -H '\(header)'" }
        if let token { script += " -H @- <<< 'Authorization: Bearer \(token)'" }
        if let body {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("body-\(UUID().uuidString)")
            try Data(body.utf8).write(to: file)
            script += " --data-binary @'\(file.path)'"
        }
        let result = try Shell.bash(script)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let status = Int(lines.last ?? "") ?? 0
        let text = lines.dropLast().joined(separator: "\n")
        let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
        return (status, object)
    }

    struct App {
        var clientID: String
        var clientSecret: String
        var enterpriseID: String
        var serviceAccountID: String
    }

    static func createApp(_ sim: BoxSimProcess, redirectURI: String? = nil, publicKeys: [(String, String)] = []) throws -> App {
        var body: [String: Any] = ["name": "boxfs test app"]
        if let redirectURI { body["redirect_uri"] = redirectURI }
        body["public_keys"] = publicKeys.map { ["id": $0.0, "pem": $0.1] }
        let text = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
        let (status, object) = try json("POST", sim.baseURL + "/_control/apps", body: text)
        guard status == 201, let id = object["client_id"] as? String, let secret = object["client_secret"] as? String,
            let enterprise = object["enterprise_id"] as? String, let service = object["service_account_id"] as? String
        else { throw XCTSkip("boxsim cannot create apps (status \(status))") }
        return App(clientID: id, clientSecret: secret, enterpriseID: enterprise, serviceAccountID: service)
    }
}
