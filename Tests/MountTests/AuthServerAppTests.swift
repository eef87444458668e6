import BoxTestSupport
import Foundation
import XCTest

/// Server authentication: Client Credentials Grant (service account or user) and JWT from the developer
/// console's config.json, each configured once with `boxfs profile add` and mounted with `-o profile`.
final class AuthServerAppTests: AuthMountTestCase {
    func testClientCredentialsProfilesForTheServiceAccountAndAUserMount() throws {
        let app = try createApp()
        let user = try control("POST", "users", #"{"name":"Casey","kind":"user"}"#)
        let userID = try XCTUnwrap(user["id"] as? String)
        let add = try boxfs(["profile", "add", "svc", "--auth", "ccg", "--endpoint", sim.baseURL, "--client-id", app.clientID,
                             "--client-secret-file", app.secretFile, "--enterprise-id", app.enterpriseID])
        XCTAssertEqual(add.status, 0, add.stderr)
        let addUser = try boxfs(["profile", "add", "casey", "--auth", "ccg", "--endpoint", sim.baseURL, "--client-id",
                                 app.clientID, "--client-secret-file", app.secretFile, "--user-id", userID])
        XCTAssertEqual(addUser.status, 0, addUser.stderr)
        XCTAssertTrue(addUser.stdout.contains("Casey"), addUser.stdout)
        let show = try boxfs(["profile", "show", "svc"])
        XCTAssertFalse(show.stdout.contains(try String(contentsOfFile: app.secretFile, encoding: .utf8)), "show redacts the secret")
        // Both roots are empty (the seed is the admin's); each mount works and lists its own.
        for profile in ["svc", "casey"] {
            let mountpoint = try mounted(options: ["profile=\(profile)"])
            XCTAssertEqual(try Shell.run(["ls", "-A", mountpoint.path]).stdout, "", profile)
        }
        let users = Set(try sim.requestLog().filter { $0.path == "/2.0/users/me" }.compactMap(\.userID))
        XCTAssertTrue(users.contains(userID), "the user profile acts as Casey: \(users)")
        XCTAssertEqual(try tokenCalls().map(\.status), [200, 200], "one CCG token per profile, reused by its mount")
    }

    func testJWTProfileFromConsoleConfigMounts() throws {
        let keys = configDirectory.appendingPathComponent("keys")
        try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
        let plain = keys.appendingPathComponent("plain.pem").path, encrypted = keys.appendingPathComponent("enc.pem").path
        try XCTSkipUnless(try Shell.run(["openssl", "genpkey", "-algorithm", "RSA", "-out", plain]).succeeded, "needs openssl")
        XCTAssertTrue(try Shell.run(["openssl", "pkcs8", "-topk8", "-in", plain, "-out", encrypted, "-passout", "pass:pw",
                                     "-v2", "aes-256-cbc"]).succeeded)
        let app = try createApp(publicKey: try Shell.run(["openssl", "pkey", "-in", plain, "-pubout"]).stdout)
        let config: [String: Any] = [
            "boxAppSettings": ["clientID": app.clientID, "clientSecret": try String(contentsOfFile: app.secretFile, encoding: .utf8),
                               "appAuth": ["publicKeyID": "key-1", "privateKey": try String(contentsOfFile: encrypted, encoding: .utf8),
                                           "passphrase": "pw"]],
            "enterpriseID": app.enterpriseID,
        ]
        let configPath = keys.appendingPathComponent("config.json")
        try JSONSerialization.data(withJSONObject: config).write(to: configPath)
        let add = try boxfs(["profile", "add", "jwt", "--auth", "jwt", "--endpoint", sim.baseURL, "--jwt-config", configPath.path])
        XCTAssertEqual(add.status, 0, add.stderr)
        _ = try mounted(options: ["profile=jwt", "token_store=memory"])
        XCTAssertEqual(try tokenCalls().map(\.status), [200, 200], "profile check + the memory-store mount's own token")
        // The same app acting for a user of its enterprise.
        let user = try XCTUnwrap(try control("POST", "users", #"{"name":"Jordan","kind":"user"}"#)["id"] as? String)
        let addUser = try boxfs(["profile", "add", "jwt-jordan", "--auth", "jwt", "--endpoint", sim.baseURL,
                                 "--jwt-config", configPath.path, "--user-id", user])
        XCTAssertEqual(addUser.status, 0, addUser.stderr)
        XCTAssertTrue(addUser.stdout.contains("Jordan (\(user))"), addUser.stdout)
    }
}
