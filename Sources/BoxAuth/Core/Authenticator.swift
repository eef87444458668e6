import Foundation
import Logging

/// The token provider of one account: `AuthenticatorState`'s decisions, carried out.
///
/// Holds the current token, refreshes it through a `TokenSource` (at most one refresh at a time,
/// shared by every waiting request), and persists it through an optional `TokenStore`, locking the
/// store and re-reading it before each refresh so that processes sharing it never spend the same
/// single-use refresh token twice.
public actor Authenticator: AccessTokenProvider {
    private var state: AuthenticatorState
    private var continuations: [Int: CheckedContinuation<String, any Error>] = [:]
    private var nextWaiter = 0
    private let source: any TokenSource
    private let store: (any TokenStore)?
    private let clock: @Sendable () -> Date
    private let logger: Logger

    /// - Parameters:
    ///   - initial: a token to start with (a developer token, a delegated source's initial token).
    ///     Without one the first request reads the store, else asks the source.
    ///   - margin: seconds before expiry at which a token is replaced.
    public init(
        source: any TokenSource, store: (any TokenStore)? = nil, initial: TokenInfo? = nil, margin: Double = 60,
        logger: Logger = Logger(label: "boxfs.auth"), clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.source = source
        self.store = store
        self.clock = clock
        self.logger = logger
        state = AuthenticatorState(credential: initial, canRefresh: source.canRefresh, margin: margin)
    }

    /// A fixed token that is never refreshed (a developer token).
    public static func fixed(_ token: String, expiresAt: Date? = nil) -> Authenticator {
        Authenticator(
            source: FixedTokenSource(), initial: TokenInfo(accessToken: token, expiresAt: expiresAt))
    }

    public func accessToken() async throws -> String {
        let waiter = newWaiter()
        return try await carryOut(state.tokenRequested(now: clock(), waiter: waiter), waiter: waiter)
    }

    /// Returns nil (the request then fails as unauthorized, EACCES at the mount) when Box refuses to
    /// issue another token: revoked or spent refresh token, bad client credentials, a developer token.
    /// The reason is logged. Other failures (token endpoint unreachable) are thrown.
    public func tokenRejected(_ token: String) async throws -> String? {
        let waiter = newWaiter()
        do {
            return try await carryOut(state.tokenRejected(token, now: clock(), waiter: waiter), waiter: waiter)
        } catch let error as AuthError where error.meansNoOtherToken {
            logger.warning("Box rejected the access token and no new one can be obtained: \(error)")
            return nil
        }
    }

    /// The current token, obtaining one first if there is none or it is about to expire.
    public func currentToken() async throws -> TokenInfo {
        _ = try await accessToken()
        guard let credential = state.credential else { throw AuthError(.notSignedIn, "no access token") }
        return credential
    }

    /// Refreshes started so far (for tests and `boxfs status`).
    public var refreshCount: Int { state.refreshCount }

    /// Revokes the tokens at Box and clears the store (`boxfs logout`).
    ///
    /// Runs under the store's exclusive access, after re-reading it: a mount refreshing at the same
    /// moment then either finishes first (and the token it wrote is the one revoked) or runs after
    /// (and finds the store empty), so no fresh token outlives the logout on disk.
    public func revoke() async throws {
        let source = self.source
        let held = state.credential
        if let store {
            try await store.withExclusiveAccess {
                let stored = try await store.read()
                for token in Self.distinct(stored, held) { try await source.revoke(token) }
                try await store.clear()
            }
        } else if let held {
            try await source.revoke(held)
        }
        state.replaceCredential(nil)
    }

    /// The stored token first (its refresh token is the newest), then ours if it is another one.
    private static func distinct(_ stored: TokenInfo?, _ held: TokenInfo?) -> [TokenInfo] {
        guard let stored else { return held.map { [$0] } ?? [] }
        guard let held, held.accessToken != stored.accessToken else { return [stored] }
        return [stored, held]
    }

    private func newWaiter() -> Int {
        nextWaiter += 1
        return nextWaiter
    }

    private func carryOut(_ decision: AuthenticatorState.Decision, waiter: Int) async throws -> String {
        switch decision {
        case .use(let token):
            return token
        case .fail(let error):
            throw error
        case .wait:
            return try await wait(waiter)
        case .startRefresh(let reason):
            let held = state.credential
            Task { await self.refresh(reason, held: held) }
            return try await wait(waiter)
        }
    }

    private func wait(_ waiter: Int) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            continuations[waiter] = continuation
        }
    }

    /// Runs one refresh to its end (even if the request that started it is cancelled) and resumes
    /// every waiter with its outcome.
    private func refresh(_ reason: AuthenticatorState.Reason, held: TokenInfo?) async {
        let source = self.source
        let margin = state.margin
        let clock = self.clock
        logger.debug("refreshing the access token", metadata: ["reason": "\(Self.describe(reason))"])
        let result: Result<TokenInfo, AuthError>
        do {
            if let store {
                result = .success(
                    try await store.withExclusiveAccess {
                        let stored = try await store.read()
                        let decision = AuthenticatorState.underLock(
                            stored: stored, held: held, reason: reason, now: clock(), margin: margin)
                        switch decision {
                        case .adopt(let token):
                            return token
                        case .fetch(let basis):
                            let token = try await source.fetchToken(previous: basis)
                            try await store.write(token)
                            return token
                        }
                    })
            } else {
                result = .success(try await source.fetchToken(previous: held))
            }
        } catch {
            result = .failure(AuthError.wrap(error))
        }
        if case .failure(let error) = result { logger.warning("could not refresh the access token: \(error)") }
        for waiter in state.refreshFinished(result) {
            guard let continuation = continuations.removeValue(forKey: waiter) else { continue }
            continuation.resume(with: result.map(\.accessToken).mapError { $0 as any Error })
        }
    }

    /// The reason without the rejected token.
    private static func describe(_ reason: AuthenticatorState.Reason) -> String {
        switch reason {
        case .initial: "initial"
        case .expiring: "expiring"
        case .rejected: "rejected by Box"
        }
    }
}
