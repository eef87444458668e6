/// The `Bearer` challenge of a `WWW-Authenticate` response header (RFC 6750 §3), e.g.
/// `Bearer realm="Service", error="invalid_token", error_description="The access token provided is invalid."`.
///
/// Box answers an invalid or expired token with 401 and `error="invalid_token"`, and a token that
/// lacks a scope with 403 and `error="insufficient_scope"`. Only the first means "get a new token".
public struct BearerChallenge: Sendable, Equatable {
    /// Auth-params in the order they were sent; names lower-cased, values unquoted.
    public let parameters: [(name: String, value: String)]

    public var realm: String? { self["realm"] }
    /// `invalid_token`, `insufficient_scope`, `invalid_request`, or another code.
    public var error: String? { self["error"] }
    public var errorDescription: String? { self["error_description"] }

    /// True when the challenge says the token itself is bad (invalid or expired), so another token
    /// may succeed. Some servers send `expired_token` instead of RFC 6750's `invalid_token`.
    public var rejectsToken: Bool {
        error == "invalid_token" || error == "expired_token"
    }

    public var isInsufficientScope: Bool { error == "insufficient_scope" }

    public subscript(name: String) -> String? {
        let key = name.lowercased()
        return parameters.first { $0.name == key }?.value
    }

    /// Parses the `Bearer` challenge out of a `WWW-Authenticate` value; nil when there is none.
    public init?(headerValue: String) {
        var scanner = ChallengeScanner(headerValue)
        guard let parameters = scanner.bearerParameters() else { return nil }
        self.parameters = parameters
    }

    public static func == (lhs: BearerChallenge, rhs: BearerChallenge) -> Bool {
        lhs.parameters.elementsEqual(rhs.parameters) { $0.name == $1.name && $0.value == $1.value }
    }
}

/// A small scanner for the challenge grammar: `scheme [token68 | name=value *("," name=value)]`,
/// with several challenges separated by commas. It reads Unicode scalars, not Characters: a combining
/// mark after a quote would otherwise join it into one Character that is not a quote.
private struct ChallengeScanner {
    private let chars: [Unicode.Scalar]
    private var index = 0

    init(_ text: String) {
        chars = Array(text.unicodeScalars)
    }

    /// Finds the `Bearer` scheme (case-insensitive) and returns its parameters.
    mutating func bearerParameters() -> [(name: String, value: String)]? {
        while index < chars.count {
            skip { $0 == " " || $0 == "," || $0 == "\t" }
            let scheme = readToken()
            guard !scheme.isEmpty else { return nil }
            let parameters = readParameters()
            if scheme.lowercased() == "bearer" { return parameters }
        }
        return nil
    }

    /// Reads `name=value` pairs until the next scheme (a token not followed by `=`) or the end.
    private mutating func readParameters() -> [(name: String, value: String)] {
        var result: [(name: String, value: String)] = []
        while index < chars.count {
            skip { $0 == " " || $0 == "," || $0 == "\t" }
            let start = index
            let name = readToken()
            skip { $0 == " " || $0 == "\t" }
            guard !name.isEmpty, index < chars.count, chars[index] == "=" else {
                index = start  // the next challenge's scheme
                return result
            }
            index += 1
            skip { $0 == " " || $0 == "\t" }
            result.append((name.lowercased(), readValue()))
        }
        return result
    }

    private mutating func readValue() -> String {
        guard index < chars.count, chars[index] == "\"" else { return readToken() }
        index += 1
        var value = String.UnicodeScalarView()
        while index < chars.count, chars[index] != "\"" {
            if chars[index] == "\\", index + 1 < chars.count { index += 1 }
            value.append(chars[index])
            index += 1
        }
        index += 1  // closing quote
        return String(value)
    }

    private mutating func readToken() -> String {
        var token = String.UnicodeScalarView()
        while index < chars.count, !" ,=\t\"".unicodeScalars.contains(chars[index]) {
            token.append(chars[index])
            index += 1
        }
        return String(token)
    }

    private mutating func skip(while predicate: (Unicode.Scalar) -> Bool) {
        while index < chars.count, predicate(chars[index]) { index += 1 }
    }
}
