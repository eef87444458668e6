import BoxTestSupport
import Foundation
import XCTest

/// What the auth mount tests ask of boxsim (its control API and request log) and of the token store.
extension AuthMountTestCase {
    /// `/oauth2/token` requests logged after `sequence`.
    func tokenCalls(after sequence: Int = 0) throws -> [LoggedRequest] {
        try sim.requestLog().filter { $0.seq > sequence && $0.path == "/oauth2/token" }
    }

    func lastSequence() throws -> Int {
        try sim.requestLog().last?.seq ?? 0
    }

    /// The token a profile's file store holds now (`access_token` or `refresh_token`).
    func stored(_ key: String = "access_token", profile: String = "default") throws -> String {
        let data = try Data(contentsOf: configDirectory.appendingPathComponent("tokens/\(profile).json"))
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return try XCTUnwrap(object?[key] as? String)
    }

    /// Makes boxsim answer 401 `invalid_token` to `token` from now on.
    func expire(_ token: String) throws {
        let result = try Shell.bash(
            "curl -sS -o /dev/null -w '%{http_code}' -X POST '\(sim.baseURL)/_control/tokens/expire' "
                + "-H 'Content-Type: application/json' --data-binary @- <<< '{\"token\":\"\(token)\"}'")
        XCTAssertEqual(result.stdout, "204", "expire: \(result.stderr)")
    }

    /// A call to boxsim's control API; the JSON answer (empty when there is none).
    @discardableResult
    func control(_ method: String, _ path: String, _ body: String) throws -> [String: Any] {
        let result = try Shell.bash("curl -sS -X \(method) '\(sim.baseURL)/_control/\(path)' "
                                    + "-H 'Content-Type: application/json' --data-binary @- <<< '\(body)'")
        return (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any] ?? [:]
    }

    /// An access token boxsim issues for `user` (the admin, 20000001, unless said otherwise).
    func issueToken(user: String = "20000001", expiresIn: Int = 3600) throws -> String {
        let issued = try control("POST", "tokens", #"{"user_id":"\#(user)","expires_in":\#(expiresIn)}"#)
        return try XCTUnwrap(issued["access_token"] as? String, "boxsim issued no token: \(issued)")
    }

    /// A file holding boxsim's developer token.
    func developerTokenFile() throws -> String {
        try privateFile(sim.developerToken, name: "dev-token-\(UUID().uuidString)")
    }

    /// An app in boxsim: (client id, secret file, enterprise id).
    func createApp(publicKey: String? = nil) throws -> (clientID: String, secretFile: String, enterpriseID: String) {
        var body: [String: Any] = ["name": "boxfs"]
        if let publicKey { body["public_keys"] = [["id": "key-1", "pem": publicKey]] }
        let text = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
        let app = try control("POST", "apps", text)
        let id = try XCTUnwrap(app["client_id"] as? String, "boxsim created no app: \(app)")
        let secret = try XCTUnwrap(app["client_secret"] as? String)
        return (id, try privateFile(secret), try XCTUnwrap(app["enterprise_id"] as? String))
    }

    /// `boxfs login` with a "browser" (curl) that follows boxsim's auto-approving authorize page.
    /// The app registers no redirect URI, so the loopback port can be any free one.
    func login(profile: String = "default", browser: String = "curl -sS -L -o /dev/null") throws -> CommandResult {
        let app = try createApp()
        return try boxfs(["login", "--profile", profile, "--endpoint", sim.baseURL, "--client-id", app.clientID,
                          "--client-secret-file", app.secretFile, "--port", "0", "--timeout", "30"],
                         extra: ["BROWSER": browser])
    }
}
