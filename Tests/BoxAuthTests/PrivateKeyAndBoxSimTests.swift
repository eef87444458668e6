import BoxAuth
import BoxTestSupport
import CurlHTTP
import Foundation
import XCTest

/// JWT with the developer console's encrypted key, against a real boxsim.
final class PrivateKeyAndBoxSimTests: XCTestCase {
    var work: URL!

    override func setUp() async throws {
        work = FileManager.default.temporaryDirectory.appendingPathComponent("boxauth-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: work)
    }

    /// An RSA key encrypted as Box's console does (PKCS#8, PBES2), and its public half.
    func makeKey(passphrase: String, encryption: [String]) throws -> (encrypted: String, publicPEM: String) {
        let plain = work.appendingPathComponent("plain-\(UUID().uuidString).pem").path
        let encrypted = work.appendingPathComponent("enc-\(UUID().uuidString).pem").path
        try XCTSkipUnless(try Shell.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", plain]).succeeded, "openssl is needed")
        let passFile = work.appendingPathComponent("pass").path
        try Data(passphrase.utf8).write(to: URL(fileURLWithPath: passFile))
        let converted = try Shell.run(["openssl", "pkcs8", "-topk8", "-in", plain, "-out", encrypted, "-passout", "file:" + passFile] + encryption)
        XCTAssertTrue(converted.succeeded, converted.stderr)
        let publicKey = try Shell.run(["openssl", "pkey", "-in", plain, "-pubout"])
        return (try String(contentsOfFile: encrypted, encoding: .utf8), publicKey.stdout)
    }

    func writeConfig(clientID: String, secret: String, keyID: String, key: String, passphrase: String, enterprise: String) throws -> String {
        let object: [String: Any] = [
            "boxAppSettings": ["clientID": clientID, "clientSecret": secret,
                               "appAuth": ["publicKeyID": keyID, "privateKey": key, "passphrase": passphrase]],
            "enterpriseID": enterprise,
        ]
        let path = work.appendingPathComponent("config.json").path
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
        return path
    }

    func testJWTFromAConsoleConfigObtainsAToken() async throws {
        let sim = try await BoxSimProcess.start()
        defer { sim.stop() }
        let key = try makeKey(passphrase: "correct horse", encryption: ["-v2", "aes-256-cbc", "-v2prf", "hmacWithSHA256"])
        XCTAssertTrue(key.encrypted.contains("BEGIN ENCRYPTED PRIVATE KEY"))
        let app = try Sim.createApp(sim, publicKeys: [("key-1", key.publicPEM)])
        let path = try writeConfig(clientID: app.clientID, secret: app.clientSecret, keyID: "key-1", key: key.encrypted,
                                   passphrase: "correct horse", enterprise: app.enterpriseID)
        let source = try JWTSource(endpoint: TokenEndpoint(apiBase: sim.baseURL, http: HTTPClient()),
                                   config: try BoxAppConfig(contentsOf: path))
        let token = try await source.fetchToken(previous: nil)
        XCTAssertNotNil(token.expiresAt)
        let me = try Sim.json("GET", sim.baseURL + "/2.0/users/me", token: token.accessToken)
        XCTAssertEqual(me.status, 200)
        XCTAssertEqual(me.object["id"] as? String, app.serviceAccountID, "JWT for the enterprise is the service account")
        let tokenCalls = try sim.requestLog().filter { $0.path == "/oauth2/token" }
        XCTAssertEqual(tokenCalls.map(\.status), [200])
    }

    func testOtherPBES2VariantsAndClearErrors() throws {
        let sha1 = try makeKey(passphrase: "pw", encryption: ["-v2", "aes-128-cbc", "-v2prf", "hmacWithSHA1"])
        let config = BoxAppConfig(clientID: "c", clientSecret: "s", publicKeyID: "k", privateKey: sha1.encrypted,
                                  passphrase: "pw", enterpriseID: "1")
        XCTAssertNoThrow(try JWTSource(endpoint: TokenEndpoint(apiBase: "http://127.0.0.1:1", http: HTTPClient()), config: config))

        let wrong = BoxAppConfig(clientID: "c", clientSecret: "s", publicKeyID: "k", privateKey: sha1.encrypted,
                             passphrase: "not the passphrase", enterpriseID: "1")
        XCTAssertThrowsError(try JWTSource(endpoint: TokenEndpoint(apiBase: "http://127.0.0.1:1", http: HTTPClient()), config: wrong)) {
            XCTAssertTrue("\($0)".contains("passphrase"), "\($0)")
            XCTAssertFalse("\($0)".contains("not the passphrase"))
        }
        let legacy = try makeKey(passphrase: "pw", encryption: ["-v1", "PBE-SHA1-3DES"])
        let old = BoxAppConfig(clientID: "c", clientSecret: "s", publicKeyID: "k", privateKey: legacy.encrypted,
                               passphrase: "pw", enterpriseID: "1")
        XCTAssertThrowsError(try JWTSource(endpoint: TokenEndpoint(apiBase: "http://127.0.0.1:1", http: HTTPClient()), config: old)) {
            XCTAssertTrue("\($0)".contains("openssl pkcs8"), "\($0)")
        }
    }
}
