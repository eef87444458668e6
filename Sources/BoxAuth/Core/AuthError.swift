/// The one error type of BoxAuth. Messages are written for the person running boxfs and never
/// contain a token, a refresh token, a client secret, a passphrase or a private key.
public struct AuthError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// A developer token passed its known expiry; it cannot be refreshed.
        case developerTokenExpired
        /// Box rejected a token that cannot be refreshed (developer token, fixed token).
        case tokenRejected
        /// The token endpoint refused the grant (`invalid_grant`, `invalid_client`, ...).
        case grantRefused(String)
        /// No token has been obtained yet and none can be (e.g. OAuth2 without `boxfs login`).
        case notSignedIn
        /// The token endpoint could not be reached or answered with something unexpected.
        case tokenEndpoint
        /// A configuration problem: missing field, unreadable file, bad private key.
        case configuration
        /// The token store could not be read, written or locked.
        case store
        /// The delegated token command failed.
        case command
        /// The OAuth2 redirect did not carry the `state` we sent, or carried an error.
        case authorization
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    /// Box will not issue another token without the user's help (sign in again, new credentials).
    public var meansNoOtherToken: Bool {
        switch kind {
        case .grantRefused, .tokenRejected, .developerTokenExpired, .notSignedIn: true
        default: false
        }
    }

    /// Wraps any error from a token source or store as an `AuthError` (keeping one that already is).
    static func wrap(_ error: any Error) -> AuthError {
        if let error = error as? AuthError { return error }
        return AuthError(.tokenEndpoint, String(describing: error))
    }
}
