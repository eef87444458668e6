import Foundation

/// The decisions of the `Authenticator`, as a value with no I/O, so every rule is unit-testable.
///
/// Rules (after Alamofire's `AuthenticationInterceptor` and Box's SDKs):
/// - A request gets the current token, unless it expires within the margin: then one refresh starts.
/// - While a refresh is in flight, every caller waits for it (one refresh, any number of waiters).
/// - Box rejected a token (401 `invalid_token`): if it is the current token, refresh once; if it is an
///   older one (someone refreshed while the request was in flight), retry with the current token.
/// - A source that cannot refresh (a developer token) fails with a clear message instead.
/// The Box client asks about a rejection at most once per request, so a request never loops.
public struct AuthenticatorState: Sendable {
    /// Why a refresh runs; it decides what the store's content may be adopted for.
    public enum Reason: Sendable, Equatable {
        /// No token yet: the store may hold a usable one.
        case initial
        /// The current token expires within the margin.
        case expiring
        /// Box rejected this token.
        case rejected(String)
    }

    /// What a caller asking for a token does next.
    public enum Decision: Sendable, Equatable {
        /// Send (or retry) with this token.
        case use(String)
        /// Wait for the refresh in flight (the caller is now a waiter).
        case wait
        /// Start a refresh for this reason and wait for it (the caller is now a waiter).
        case startRefresh(Reason)
        case fail(AuthError)
    }

    /// What to do under the store's lock, after re-reading it.
    public enum StoreDecision: Sendable, Equatable {
        /// Another process already refreshed: use its token, no request to Box.
        case adopt(TokenInfo)
        /// Ask the source for a new token, starting from this one (its refresh token is the newest).
        case fetch(basis: TokenInfo?)
    }

    public private(set) var credential: TokenInfo?
    public private(set) var refreshInFlight: Reason?
    /// Callers waiting for the refresh in flight, in arrival order.
    public private(set) var waiters: [Int] = []
    /// Refreshes started so far.
    public private(set) var refreshCount = 0
    public let canRefresh: Bool
    /// Seconds before expiry at which a token is replaced (Box's SDK uses 60).
    public let margin: Double

    public init(credential: TokenInfo?, canRefresh: Bool, margin: Double = 60) {
        self.credential = credential
        self.canRefresh = canRefresh
        self.margin = margin
    }

    /// `waiter` wants a token to send a request now.
    public mutating func tokenRequested(now: Date, waiter: Int) -> Decision {
        if refreshInFlight != nil { return join(waiter) }
        guard let credential else {
            guard canRefresh else { return .fail(AuthError(.notSignedIn, "no access token is configured")) }
            return start(.initial, waiter)
        }
        guard canRefresh else {
            if credential.isExpired(now: now) { return .fail(Self.developerTokenExpired) }
            return .use(credential.accessToken)
        }
        if credential.needsRefresh(now: now, margin: margin) { return start(.expiring, waiter) }
        return .use(credential.accessToken)
    }

    /// Box rejected `token`, which `waiter` had sent.
    public mutating func tokenRejected(_ token: String, now: Date, waiter: Int) -> Decision {
        if refreshInFlight != nil { return join(waiter) }
        guard let credential else {
            return canRefresh ? start(.initial, waiter) : .fail(Self.developerTokenRejected)
        }
        if token != credential.accessToken { return .use(credential.accessToken) }
        guard canRefresh else {
            return .fail(credential.isExpired(now: now) ? Self.developerTokenExpired : Self.developerTokenRejected)
        }
        return start(.rejected(token), waiter)
    }

    /// The refresh in flight ended. Returns the waiters to resume, all with the same outcome.
    public mutating func refreshFinished(_ result: Result<TokenInfo, AuthError>) -> [Int] {
        if case .success(let token) = result { credential = token }
        refreshInFlight = nil
        defer { waiters = [] }
        return waiters
    }

    /// Replaces the credential (e.g. after `boxfs login` in the same process, or a revoke).
    public mutating func replaceCredential(_ token: TokenInfo?) {
        credential = token
    }

    /// Decides, with the store locked and re-read, whether a refresh is still needed.
    /// Box refresh tokens are single-use: when another process refreshed since we last read the store,
    /// its token must be adopted, because refreshing with our (now burned) refresh token would fail.
    public static func underLock(
        stored: TokenInfo?, held: TokenInfo?, reason: Reason, now: Date, margin: Double
    ) -> StoreDecision {
        guard let stored else { return .fetch(basis: held) }
        let fresh = !stored.needsRefresh(now: now, margin: margin) && !stored.isExpired(now: now)
        switch reason {
        case .initial:
            return fresh ? .adopt(stored) : .fetch(basis: stored)
        case .expiring:
            let changed = stored.accessToken != held?.accessToken
            return changed && fresh ? .adopt(stored) : .fetch(basis: stored)
        case .rejected(let token):
            return stored.accessToken != token && fresh ? .adopt(stored) : .fetch(basis: stored)
        }
    }

    private mutating func join(_ waiter: Int) -> Decision {
        waiters.append(waiter)
        return .wait
    }

    private mutating func start(_ reason: Reason, _ waiter: Int) -> Decision {
        refreshInFlight = reason
        refreshCount += 1
        waiters.append(waiter)
        return .startRefresh(reason)
    }

    static let developerTokenExpired = AuthError(
        .developerTokenExpired,
        "the developer token has expired: developer tokens last 60 minutes and cannot be refreshed; "
            + "get a new one from the Box developer console, or sign in with `boxfs login`")
    static let developerTokenRejected = AuthError(
        .tokenRejected,
        "Box rejected the access token (a developer token expires after 60 minutes and cannot be refreshed); "
            + "get a new token, or sign in with `boxfs login`")
}
