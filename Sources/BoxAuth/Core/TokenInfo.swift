import Foundation

/// An access token with what is known about it: its refresh token (OAuth2 only; single-use at Box),
/// when it expires and when it was obtained.
///
/// Encoded as JSON with snake_case keys and dates as seconds since 1970. `description`, `debugDescription`
/// and the mirror never show the tokens.
public struct TokenInfo: Codable, Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    public var accessToken: String
    public var refreshToken: String?
    /// Nil when unknown (a developer token read from a file).
    public var expiresAt: Date?
    public var obtainedAt: Date

    public init(accessToken: String, refreshToken: String? = nil, expiresAt: Date?, obtainedAt: Date = Date()) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.obtainedAt = obtainedAt
    }

    /// The longest lifetime taken as given (a year; Box's access tokens live an hour).
    public static let longestLifetime: Double = 365 * 86_400

    /// `expiresIn` as an answer gives it: a lifetime that is not a finite number is unknown, a negative
    /// one is 0, and one over `longestLifetime` counts as that (`1e300` would overflow what uses it).
    public init(accessToken: String, refreshToken: String? = nil, expiresIn: Double?, obtainedAt: Date = Date()) {
        let lifetime = expiresIn.flatMap { $0.isFinite ? min(max($0, 0), Self.longestLifetime) : nil }
        self.init(
            accessToken: accessToken, refreshToken: refreshToken,
            expiresAt: lifetime.map { obtainedAt.addingTimeInterval($0) }, obtainedAt: obtainedAt)
    }

    /// Whether the token should be replaced before it is sent at `now`: it expires within `margin`
    /// seconds, where the margin is capped at half the token's lifetime (so a token that lives only
    /// 30 s is used for 15 s rather than refreshed before every request). Unknown expiry: never.
    public func needsRefresh(now: Date, margin: Double) -> Bool {
        guard let expiresAt else { return false }
        let lifetime = expiresAt.timeIntervalSince(obtainedAt)
        let effectiveMargin = min(margin, max(lifetime / 2, 0))
        return expiresAt.timeIntervalSince(now) <= effectiveMargin
    }

    /// Whether the token's known expiry has passed.
    public func isExpired(now: Date) -> Bool {
        expiresAt.map { $0 <= now } ?? false
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", refreshToken = "refresh_token"
        case expiresAt = "expires_at", obtainedAt = "obtained_at"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        accessToken = try container.decode(String.self, forKey: .accessToken)
        refreshToken = try container.decodeIfPresent(String.self, forKey: .refreshToken)
        expiresAt = try container.decodeIfPresent(Double.self, forKey: .expiresAt).map(Date.init(timeIntervalSince1970:))
        obtainedAt = Date(timeIntervalSince1970: try container.decodeIfPresent(Double.self, forKey: .obtainedAt) ?? 0)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(accessToken, forKey: .accessToken)
        try container.encodeIfPresent(refreshToken, forKey: .refreshToken)
        try container.encodeIfPresent(expiresAt?.timeIntervalSince1970, forKey: .expiresAt)
        try container.encode(obtainedAt.timeIntervalSince1970, forKey: .obtainedAt)
    }

    public var description: String {
        // A stored expiry can be any number (a hand-edited token file); Int(_:) traps beyond Int.
        let expiry = expiresAt.map { date -> String in
            let seconds = date.timeIntervalSinceNow
            return "expires \(abs(seconds) < 1e15 ? String(Int(seconds)) : String(seconds)) s from now"
        } ?? "expiry unknown"
        return "TokenInfo(access token <redacted>, \(refreshToken == nil ? "no" : "a") refresh token, \(expiry))"
    }

    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["token": description]) }
}
