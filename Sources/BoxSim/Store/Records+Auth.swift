import GRDB

/// A registered Box app (OAuth client): client credentials, redirect URI, JWT public keys, service account.
struct AppRecord: Codable, FetchableRecord, PersistableRecord, Sendable {
    static let databaseTableName = "app"
    var clientID: String
    var clientSecret: String
    var name: String
    var redirectURI: String?
    var serviceAccountID: Int64
    var canGenerateUserTokens: Bool
    /// JSON array of {"id": kid, "pem": public key PEM}.
    var publicKeys: String

    enum CodingKeys: String, CodingKey {
        case name
        case clientID = "client_id", clientSecret = "client_secret", redirectURI = "redirect_uri"
        case serviceAccountID = "service_account_id", canGenerateUserTokens = "can_generate_user_tokens"
        case publicKeys = "public_keys"
    }
}

/// A one-time authorization code from the authorize page (valid 30 s, as on Box).
struct AuthCodeRecord: Codable, FetchableRecord, PersistableRecord, Sendable {
    static let databaseTableName = "auth_code"
    var code: String
    var clientID: String
    var userID: Int64
    var redirectURI: String?
    var scopes: String?
    var expiresAt: Int64

    enum CodingKeys: String, CodingKey {
        case code, scopes
        case clientID = "client_id", userID = "user_id", redirectURI = "redirect_uri", expiresAt = "expires_at"
    }
}
