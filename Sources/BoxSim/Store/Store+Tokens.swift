import GRDB

/// A new access token (and, for OAuth 2 user grants, its refresh token).
struct IssuedTokens: Sendable {
    var accessToken: String
    var refreshToken: String?
    var expiresIn: Int64
    var record: TokenRecord
}

extension Store {
    static let refreshTokenLifetime: Int64 = 60 * 24 * 3600
    static let authCodeLifetime: Int64 = 30

    /// URL-safe random token text (the Box SDKs do not percent-encode `+`, `=`, `&`).
    static func randomToken(length: Int = 32) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
    }

    func issueTokens(userID: Int64, clientID: String?, scopes: String?, restrictedItemID: Int64? = nil,
                     sharedLinkToken: String? = nil, lifetime: Int64, withRefresh: Bool) async throws
        -> IssuedTokens {
        let now = Timestamp.now()
        let family = Self.randomToken(length: 16)
        let access = TokenRecord(token: Self.randomToken(), userID: userID, kind: "access", expiresAt: now + lifetime,
                                 clientID: clientID, scopes: scopes, restrictedItemID: restrictedItemID, family: family,
                                 sharedLinkToken: sharedLinkToken)
        let refresh = withRefresh
            ? TokenRecord(token: Self.randomToken(length: 64), userID: userID, kind: "refresh",
                          expiresAt: now + Self.refreshTokenLifetime, clientID: clientID, scopes: scopes,
                          restrictedItemID: nil, family: family)
            : nil
        try await database.write { db in
            try access.insert(db)
            try refresh?.insert(db)
        }
        return IssuedTokens(accessToken: access.token, refreshToken: refresh?.token, expiresIn: lifetime,
                            record: access)
    }

    /// Takes a refresh token out of the store (single use); nil if unknown, expired or another client's.
    func consumeRefreshToken(_ token: String, clientID: String) async throws -> TokenRecord? {
        try await database.write { db in
            guard let record = try TokenRecord.fetchOne(db, key: token), record.kind == "refresh" else { return nil }
            try record.delete(db)
            guard record.clientID == clientID, (record.expiresAt ?? .max) > Timestamp.now() else { return nil }
            return record
        }
    }

    /// The record of a known token of any kind (no expiry check).
    func tokenRecord(_ token: String) async throws -> TokenRecord? {
        try await database.read { db in try TokenRecord.fetchOne(db, key: token) }
    }

    /// Revokes a token and the others issued with it. Returns whether it existed.
    @discardableResult
    func revoke(token: String) async throws -> Bool {
        try await database.write { db in
            guard let record = try TokenRecord.fetchOne(db, key: token) else { return false }
            if let family = record.family {
                try db.execute(sql: "DELETE FROM token WHERE family = ?", arguments: [family])
            } else {
                try record.delete(db)
            }
            return true
        }
    }

    /// Makes a token expire now (tests of expiry handling).
    func expire(token: String) async throws -> Bool {
        try await database.write { db in
            try db.execute(sql: "UPDATE token SET expires_at = ? WHERE token = ?",
                           arguments: [Timestamp.now() - 1, token])
            return db.changesCount > 0
        }
    }

    func createAuthCode(clientID: String, userID: Int64, redirectURI: String?, scopes: String?) async throws -> String {
        let record = AuthCodeRecord(code: Self.randomToken(), clientID: clientID, userID: userID,
                                    redirectURI: redirectURI, scopes: scopes,
                                    expiresAt: Timestamp.now() + Self.authCodeLifetime)
        try await database.write { db in try record.insert(db) }
        return record.code
    }

    /// Takes an authorization code out of the store (single use); nil if unknown or expired.
    func consumeAuthCode(_ code: String) async throws -> AuthCodeRecord? {
        try await database.write { db in
            guard let record = try AuthCodeRecord.fetchOne(db, key: code) else { return nil }
            try record.delete(db)
            return record.expiresAt > Timestamp.now() ? record : nil
        }
    }

    /// Records a JWT `jti`; false if it was used before.
    func useJWTID(_ jti: String, expiresAt: Int64) async throws -> Bool {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM jwt_id WHERE expires_at < ?", arguments: [Timestamp.now() - 3600])
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM jwt_id WHERE jti = ?", arguments: [jti]) == true {
                return false
            }
            try db.execute(sql: "INSERT INTO jwt_id(jti, expires_at) VALUES (?, ?)", arguments: [jti, expiresAt])
            return true
        }
    }
}
