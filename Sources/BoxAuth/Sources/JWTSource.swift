import Crypto
import Foundation
import _CryptoExtras

/// JWT server authentication: an RS256-signed assertion (`iss` = client id, `sub` = enterprise or user
/// id, `aud` = Box's token URL, `jti` random, `exp` ≤ 60 s) is exchanged for an access token.
public struct JWTSource: TokenSource {
    public let endpoint: TokenEndpoint
    public let config: BoxAppConfig
    public let subject: ClientCredentialsSource.Subject
    private let key: _RSA.Signing.PrivateKey
    let clock: @Sendable () -> Date

    /// Box always expects this audience, whatever host the token request goes to.
    public static let audience = "https://api.box.com/oauth2/token"

    /// Decrypts the private key now, so a wrong passphrase fails at start-up.
    public init(endpoint: TokenEndpoint, config: BoxAppConfig, subject: ClientCredentialsSource.Subject? = nil,
                clock: @escaping @Sendable () -> Date = { Date() }) throws {
        guard let subject = subject ?? config.enterpriseID.map({ .enterprise($0) }) else {
            throw AuthError(.configuration, "the JWT configuration has no enterpriseID; give a user or enterprise id")
        }
        self.endpoint = endpoint
        self.config = config
        self.subject = subject
        self.clock = clock
        key = try PrivateKeyLoader.load(pem: config.privateKey, passphrase: config.passphrase)
    }

    public func fetchToken(previous: TokenInfo?) async throws -> TokenInfo {
        try await endpoint.requestToken([
            ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"), ("assertion", try assertion()),
            ("client_id", config.clientID), ("client_secret", config.clientSecret),
        ])
    }

    public func revoke(_ token: TokenInfo) async throws {
        try await endpoint.revoke(token: token.accessToken, clientID: config.clientID, clientSecret: config.clientSecret)
    }

    /// The signed assertion: `base64url(header).base64url(claims).base64url(signature)`.
    func assertion() throws -> String {
        let now = Int(clock().timeIntervalSince1970)
        let (subjectType, subjectID) =
            switch subject {
            case .enterprise(let id): ("enterprise", id)
            case .user(let id): ("user", id)
            }
        let header: [String: Any] = ["alg": "RS256", "typ": "JWT", "kid": config.publicKeyID]
        let claims: [String: Any] = [
            "iss": config.clientID, "sub": subjectID, "box_sub_type": subjectType, "aud": Self.audience,
            "jti": Self.randomJTI(), "exp": now + 45, "iat": now,
        ]
        let signingInput = try Self.base64URL(JSONSerialization.data(withJSONObject: header, options: .sortedKeys))
            + "." + Self.base64URL(JSONSerialization.data(withJSONObject: claims, options: .sortedKeys))
        let signature = try key.signature(for: SHA256.hash(data: Data(signingInput.utf8)), padding: .insecurePKCS1v1_5)
        return signingInput + "." + Self.base64URL(signature.rawRepresentation)
    }

    static func randomJTI() -> String {
        var generator = SystemRandomNumberGenerator()
        return base64URL(Data((0..<24).map { _ in UInt8.random(in: 0...255, using: &generator) }))
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
