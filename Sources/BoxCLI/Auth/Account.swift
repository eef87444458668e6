import BoxAuth

/// The account a mount (or `boxfs logout`) uses, and how its tokens are obtained.
struct Account: Sendable {
    var tokens: any AccessTokenProvider
    /// The authenticator behind `tokens`, when there is one (revoke, token exchange).
    var authenticator: Authenticator?
    /// The server base from the profile (an `-o endpoint=` option wins over it).
    var endpoint: String?
    var asUser: String?
    /// For messages: `profile 'work' (oauth)` or `developer token`.
    var label: String
    /// What the user can do when Box rejects the token and no other one can be had.
    var rejectedTokenAdvice: String
    /// The token file read again when Box rejects its token (`-o token_file=PATH`).
    var tokenFile: TokenFileSource?

    static let developerTokenAdvice =
        "developer tokens expire after 60 minutes and cannot be refreshed; get a new one from the Box developer "
        + "console, or sign in once with `boxfs login`"

    /// The advice for a profile's kind of authentication.
    static func rejectedTokenAdvice(for profile: Profile) -> String {
        switch profile.auth {
        case .developer: developerTokenAdvice
        case .oauth: "the sign-in has expired or was revoked: run `boxfs login --profile \(profile.name)`"
        case .delegated: "the token command's token was refused: check the command of profile '\(profile.name)'"
        case .ccg, .jwt: "Box issued a token it does not accept: check the app and subject of profile '\(profile.name)'"
        }
    }
}
