import Crypto
import Foundation

/// The opaque, short-lived `/dl/<token>` credential: file id, version id and expiry, HMAC-SHA256 signed with a
/// key kept in the data directory (so links survive a restart until they expire).
struct DownloadTokenSigner: Sendable {
    /// Raw key bytes (SymmetricKey is not Sendable, so one is made per use).
    let keyBytes: [UInt8]
    private var key: SymmetricKey { SymmetricKey(data: keyBytes) }
    static let lifetime: Int64 = 15 * 60

    struct Claims: Equatable, Sendable {
        var fileID: Int64
        var versionID: Int64
        var expiresAt: Int64
    }

    func sign(_ claims: Claims) -> String {
        let payload = "\(claims.fileID).\(claims.versionID).\(claims.expiresAt)"
        let mac = HMAC<SHA256>.authenticationCode(for: Data(payload.utf8), using: key)
        return Base64URL.encode(Data(payload.utf8)) + "." + Base64URL.encode(Data(mac))
    }

    /// The claims of a well-signed, unexpired token.
    func verify(_ token: String, now: Int64) -> Claims? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let payload = Base64URL.decode(String(parts[0])),
              let mac = Base64URL.decode(String(parts[1])),
              HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: payload, using: key),
              let text = String(data: payload, encoding: .utf8)
        else { return nil }
        let numbers = text.split(separator: ".").compactMap { Int64($0) }
        guard numbers.count == 3, numbers[2] > now else { return nil }
        return Claims(fileID: numbers[0], versionID: numbers[1], expiresAt: numbers[2])
    }
}

enum Base64URL {
    static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
