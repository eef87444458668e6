import Synchronization

/// Keeps the token in memory, for one process (`token_store=memory`): nothing touches the disk.
public final class MemoryTokenStore: TokenStore {
    private let token: Mutex<TokenInfo?>

    public init(_ initial: TokenInfo? = nil) {
        token = Mutex(initial)
    }

    public func read() async throws -> TokenInfo? { token.withLock { $0 } }
    public func write(_ new: TokenInfo) async throws { token.withLock { $0 = new } }
    public func clear() async throws { token.withLock { $0 = nil } }

    /// Within one process the `Authenticator` already runs one refresh at a time.
    public func withExclusiveAccess<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await body()
    }
}
