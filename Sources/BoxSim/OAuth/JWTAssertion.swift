import _CryptoExtras
import Crypto
import Foundation

/// A JWT bearer assertion (`urn:ietf:params:oauth:grant-type:jwt-bearer`), checked as Box checks it:
/// RS256/384/512 signature against one of the app's public keys (by `kid`), `iss` = client id,
/// `aud` = the token URL, `exp` in the future and at most 60 s ahead, `jti` 16–128 characters.
struct JWTAssertion: Sendable {
    var subject: String
    var subjectType: String
    var jti: String
    var expiresAt: Int64

    static let maximumLifetime: Int64 = 60
    static let boxAudience = "https://api.box.com/oauth2/token"

    static func verify(_ assertion: String, app: AppRecord, acceptedAudiences: [String], now: Int64) throws
        -> JWTAssertion {
        let parts = assertion.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let headerData = Base64URL.decode(parts[0]), let claimsData = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]),
              let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
              let claims = try? JSONSerialization.jsonObject(with: claimsData) as? [String: Any]
        else { throw OAuthError.grant("Invalid JWT assertion") }

        let keys = app.decodedPublicKeys
        let kid = header["kid"] as? String
        guard let key = keys.first(where: { $0.id == kid }) ?? (kid == nil && keys.count == 1 ? keys.first : nil),
              let publicKey = try? _RSA.Signing.PublicKey(pemRepresentation: key.pem)
        else { throw OAuthError.grant("Please check the 'kid' header: no matching public key is registered") }
        let signed = Data((parts[0] + "." + parts[1]).utf8)
        let rsaSignature = _RSA.Signing.RSASignature(rawRepresentation: signature)
        let valid: Bool
        switch header["alg"] as? String {
        case "RS256": valid = publicKey.isValidSignature(rsaSignature, for: SHA256.hash(data: signed), padding: .insecurePKCS1v1_5)
        case "RS384": valid = publicKey.isValidSignature(rsaSignature, for: SHA384.hash(data: signed), padding: .insecurePKCS1v1_5)
        case "RS512": valid = publicKey.isValidSignature(rsaSignature, for: SHA512.hash(data: signed), padding: .insecurePKCS1v1_5)
        default: throw OAuthError.grant("Unsupported JWT algorithm")
        }
        guard valid else { throw OAuthError.grant("Signature verification failed") }

        guard claims["iss"] as? String == app.clientID else { throw OAuthError.grant("Invalid 'iss' claim") }
        guard let audience = claims["aud"] as? String, acceptedAudiences.contains(audience) else {
            throw OAuthError.grant("Invalid 'aud' claim")
        }
        guard let exp = (claims["exp"] as? NSNumber)?.int64Value else { throw OAuthError.grant("Missing 'exp' claim") }
        guard exp > now else {
            throw OAuthError.grant("Current date time must be before the expiration date time listed in the 'exp' claim.")
        }
        guard exp <= now + maximumLifetime else {
            throw OAuthError.grant("Please check the 'exp' claim: it must be at most 60 seconds in the future.")
        }
        guard let jti = claims["jti"] as? String, (16...128).contains(jti.count) else {
            throw OAuthError.grant("Please check the 'jti' claim.")
        }
        guard let subject = claims["sub"] as? String, let subjectType = claims["box_sub_type"] as? String else {
            throw OAuthError.grant("Please check the 'sub' and 'box_sub_type' claims.")
        }
        return JWTAssertion(subject: subject, subjectType: subjectType, jti: jti, expiresAt: exp)
    }
}
