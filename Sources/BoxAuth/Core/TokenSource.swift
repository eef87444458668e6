/// Where new access tokens come from: OAuth2 refresh, Client Credentials, JWT, a delegated command,
/// token exchange. The `Authenticator` decides when to ask; a source only knows how.
public protocol TokenSource: Sendable {
    /// Whether `fetchToken` can be called at all (false for a fixed developer token).
    var canRefresh: Bool { get }

    /// A new token. `previous` is the newest token known (from the store when there is one); for
    /// OAuth2 its refresh token is the one to spend.
    func fetchToken(previous: TokenInfo?) async throws -> TokenInfo

    /// Invalidates `token` at Box (best effort where the grant has nothing to revoke).
    func revoke(_ token: TokenInfo) async throws
}

extension TokenSource {
    public var canRefresh: Bool { true }
    public func revoke(_ token: TokenInfo) async throws {}
}

/// A fixed token (a developer token): never refreshed. Its expiry may be known (`expiresAt`).
public struct FixedTokenSource: TokenSource {
    public init() {}
    public var canRefresh: Bool { false }

    public func fetchToken(previous: TokenInfo?) async throws -> TokenInfo {
        throw AuthenticatorState.developerTokenRejected
    }
}
