import BoxTestSupport
import Foundation
import XCTest

/// The JWT bearer grant, with an RS256 assertion signed by the `openssl` command line.
final class JWTGrantTests: XCTestCase {
    private var keyDirectory: URL!

    override func setUpWithError() throws {
        keyDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("jwt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: keyDirectory, withIntermediateDirectories: true)
        _ = try Curl.runProcess("/usr/bin/openssl", ["genrsa", "-out", key.path, "2048"])
        _ = try Curl.runProcess("/usr/bin/openssl", ["rsa", "-in", key.path, "-pubout", "-out", publicKey.path])
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: keyDirectory)
    }

    private var key: URL { keyDirectory.appendingPathComponent("private.pem") }
    private var publicKey: URL { keyDirectory.appendingPathComponent("public.pem") }

    private func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private func assertion(claims: [String: Any], kid: String = "key1") throws -> String {
        let header = try JSONSerialization.data(withJSONObject: ["alg": "RS256", "typ": "JWT", "kid": kid])
        let payload = try JSONSerialization.data(withJSONObject: claims)
        let input = base64URL(header) + "." + base64URL(payload)
        let inputFile = keyDirectory.appendingPathComponent("input")
        let signatureFile = keyDirectory.appendingPathComponent("signature")
        try Data(input.utf8).write(to: inputFile)
        _ = try Curl.runProcess("/usr/bin/openssl", ["dgst", "-sha256", "-sign", key.path, "-out", signatureFile.path,
                                                     inputFile.path])
        return input + "." + base64URL(try Data(contentsOf: signatureFile))
    }

    func testJWTGrantChecksSignatureExpiryAndJTI() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let pem = try String(contentsOf: publicKey, encoding: .utf8)
        let app = try fixture.createApp(publicKeys: [["id": "key1", "pem": pem]])
        let now = Int(Date().timeIntervalSince1970)
        var claims: [String: Any] = [
            "iss": app["client_id"]!, "sub": app["enterprise_id"]!, "box_sub_type": "enterprise",
            "aud": "https://api.box.com/oauth2/token", "jti": UUID().uuidString, "exp": now + 45,
        ]
        func grant(_ assertion: String) throws -> CurlResult {
            try fixture.postForm("/oauth2/token", [
                "grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer", "assertion": assertion,
                "client_id": app["client_id"]!, "client_secret": app["client_secret"]!,
            ])
        }
        let signed = try assertion(claims: claims)
        let ok = try grant(signed)
        XCTAssertEqual(ok.status, 200, ok.text)
        let token = try XCTUnwrap(try ok.json()["access_token"] as? String)
        XCTAssertEqual(try Curl.run(fixture.sim.baseURL + "/2.0/users/me", token: token).json()["id"] as? String,
                       app["service_account_id"])

        XCTAssertEqual(try grant(signed).status, 400, "a jti cannot be used twice")

        claims["jti"] = UUID().uuidString
        claims["exp"] = now + 600
        XCTAssertEqual(try grant(try assertion(claims: claims)).status, 400, "exp more than 60 s ahead")

        claims["exp"] = now - 5
        let expired = try grant(try assertion(claims: claims))
        XCTAssertEqual(try expired.json()["error"] as? String, "invalid_grant")

        claims["exp"] = now + 30
        claims["jti"] = UUID().uuidString
        let valid = try assertion(claims: claims)
        let tampered = String(valid.dropLast(4)) + (valid.hasSuffix("AAAA") ? "BBBB" : "AAAA")
        XCTAssertEqual(try grant(tampered).status, 400, "bad signature")
        XCTAssertEqual(try grant(try assertion(claims: claims, kid: "unknown")).status, 400)
        claims["aud"] = "https://elsewhere.example/token"
        XCTAssertEqual(try grant(try assertion(claims: claims)).status, 400, "wrong audience")
    }
}
