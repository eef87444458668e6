/// Where tokens persist between runs and are shared between processes.
///
/// To add a store (a keyring, a database), implement these four requirements:
/// - `read()` returns the stored token or nil when there is none;
/// - `write(_:)` replaces it (atomically: a reader sees the old or the new token, never half);
/// - `clear()` removes it;
/// - `withExclusiveAccess(_:)` runs `body` while no other user of the same store (in this process or
///   another) runs its own `body`. The `Authenticator` refreshes inside it after re-reading the
///   store, because Box refresh tokens are single-use: two mounts sharing an account must never spend
///   the same refresh token. A store only ever used by one process may run `body` directly.
/// A store must never log or print a token. Then register it under a `token_store` name in
/// `TokenStoreChoice` (Sources/BoxCLI/Auth/TokenStoreChoice.swift); docs/AUTH.md walks through it.
public protocol TokenStore: Sendable {
    func read() async throws -> TokenInfo?
    func write(_ token: TokenInfo) async throws
    func clear() async throws
    func withExclusiveAccess<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T
}
