import Foundation

/// OAuth2 3-legged (authorization code) with refresh: the token comes from `boxfs login` and is
/// renewed with its refresh token, which Box accepts once only.
public struct OAuth2Source: TokenSource {
    public let endpoint: TokenEndpoint
    public let clientID: String
    let clientSecret: String

    public init(endpoint: TokenEndpoint, clientID: String, clientSecret: String) {
        self.endpoint = endpoint
        self.clientID = clientID
        self.clientSecret = clientSecret
    }

    public func fetchToken(previous: TokenInfo?) async throws -> TokenInfo {
        guard let refresh = previous?.refreshToken else {
            throw AuthError(.notSignedIn, "not signed in to Box: run `boxfs login` first")
        }
        do {
            return try await endpoint.requestToken(
                [("grant_type", "refresh_token"), ("client_id", clientID), ("client_secret", clientSecret),
                 ("refresh_token", refresh)], retryable: false)
        } catch let error as AuthError where error.kind == .grantRefused("invalid_grant") {
            throw AuthError(
                error.kind, "\(error.message) — the sign-in has expired or was revoked: run `boxfs login` again")
        }
    }

    /// Exchanges the code of the authorization redirect for the first token pair.
    public func exchange(code: String, redirectURI: String?) async throws -> TokenInfo {
        var form = [("grant_type", "authorization_code"), ("code", code), ("client_id", clientID),
                    ("client_secret", clientSecret)]
        if let redirectURI { form.append(("redirect_uri", redirectURI)) }
        return try await endpoint.requestToken(form, retryable: false)
    }

    /// Revokes the access token (Box then also invalidates the refresh token issued with it) and
    /// the refresh token.
    public func revoke(_ token: TokenInfo) async throws {
        try await endpoint.revoke(token: token.accessToken, clientID: clientID, clientSecret: clientSecret)
        if let refresh = token.refreshToken {
            try await endpoint.revoke(token: refresh, clientID: clientID, clientSecret: clientSecret)
        }
    }

    /// An unguessable `state` for the authorize request (checked on the redirect against CSRF).
    public static func randomState() -> String { JWTSource.randomJTI() }

    /// The page the user opens to grant access (`<authorizeBase>?response_type=code&client_id=...`).
    public static func authorizeURL(
        base: String, clientID: String, redirectURI: String, state: String, scope: String? = nil
    ) -> String {
        var pairs = [("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI),
                     ("state", state)]
        if let scope { pairs.append(("scope", scope)) }
        return base + (base.contains("?") ? "&" : "?") + FormEncoding.encode(pairs)
    }
}
