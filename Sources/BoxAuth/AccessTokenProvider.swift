/// Supplies the bearer token that authorizes Box API calls.
///
/// The Box client asks for a token before each request and, when Box rejects one as invalid
/// (401 with `WWW-Authenticate: Bearer error="invalid_token"`), reports the rejected token once so
/// the provider can refresh. Passing the rejected token lets a provider that is shared by many
/// concurrent requests tell a stale rejection (someone already refreshed: hand out the current
/// token) from a real one (refresh now), which is what the full authenticator will do.
public protocol AccessTokenProvider: Sendable {
    /// The access token to send now.
    func accessToken() async throws -> String

    /// Box rejected `token`. Returns a token to retry the request with once, or `nil` when no
    /// other token can be obtained (the request then fails as unauthorized).
    func tokenRejected(_ token: String) async throws -> String?
}
