import CurlHTTP
import Foundation

/// Box's OAuth2 endpoints: `POST <apiBase>/oauth2/token` (every grant) and `POST <apiBase>/oauth2/revoke`.
/// Errors carry Box's `error` and `error_description`, never the form that was sent.
public struct TokenEndpoint: Sendable {
    /// For example `https://api.box.com` (or boxsim's base URL).
    public let apiBase: String
    let http: HTTPClient
    let clock: @Sendable () -> Date

    public init(apiBase: String, http: HTTPClient, clock: @escaping @Sendable () -> Date = { Date() }) {
        var base = apiBase
        while base.hasSuffix("/") { base.removeLast() }
        self.apiBase = base
        self.http = http
        self.clock = clock
    }

    public var tokenURL: String { apiBase + "/oauth2/token" }
    public var revokeURL: String { apiBase + "/oauth2/revoke" }

    /// Retries of token requests: the client's one `RetryPolicy`, three sends within 10 s (a mount or
    /// a request waits for the token).
    static let retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 0.3, maxDelay: 2, maxTotalWait: 10)

    /// Posts a grant and decodes the token. `retryable` grants (everything but a single-use refresh
    /// token) are retried by `retryPolicy` after a 5xx answer or a transient transport failure; every
    /// grant is retried after a 429 (refused before it was looked at).
    public func requestToken(_ form: [(String, String)], retryable: Bool = true) async throws -> TokenInfo {
        let obtainedAt = clock()
        let response = try await post(tokenURL, form, retryable: retryable)
        guard response.status == 200 else { throw Self.error(from: response, grant: grantName(form)) }
        guard let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any],
            let access = object["access_token"] as? String, !access.isEmpty
        else { throw AuthError(.tokenEndpoint, "the token endpoint answered without an access token") }
        let expiresIn = (object["expires_in"] as? NSNumber)?.doubleValue
        return TokenInfo(
            accessToken: access, refreshToken: object["refresh_token"] as? String, expiresIn: expiresIn,
            obtainedAt: obtainedAt)
    }

    /// Revokes a token (access or refresh). 200 means done; Box also answers 200 for unknown tokens.
    public func revoke(token: String, clientID: String, clientSecret: String) async throws {
        let response = try await post(
            revokeURL, [("client_id", clientID), ("client_secret", clientSecret), ("token", token)], retryable: true)
        guard response.status == 200 else { throw Self.error(from: response, grant: "revoke") }
    }

    private func post(_ url: String, _ form: [(String, String)], retryable: Bool) async throws -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        headers.add(name: "Accept", value: "application/json")
        let request = HTTPRequest(
            method: .post, url: url, headers: headers, body: .data(Data(FormEncoding.encode(form).utf8)))
        var attempt = 0
        var waited = 0.0
        while true {
            attempt += 1
            let failure: RetryPolicy.Failure
            let response: HTTPResponse?
            let transportError: HTTPError?
            do {
                let answer = try await http.send(request)
                (response, transportError) = (answer, nil)
                failure = .status(answer.status, retryAfter: RetryAfter.seconds(of: answer))
            } catch let error as HTTPError {
                (response, transportError) = (nil, error)
                failure = .transport(isTransient: error.isTransient)
            }
            if let response, response.status < 400 { return response }
            guard
                let delay = Self.retryPolicy.delay(
                    after: failure, attempt: attempt, isIdempotent: retryable, waitedSoFar: waited,
                    random: Double.random(in: 0..<1))
            else {
                if let response { return response }
                let message = transportError?.message ?? "no answer"
                throw AuthError(.tokenEndpoint, "cannot reach the Box token endpoint at \(url): \(message)")
            }
            try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
            waited += delay
        }
    }

    private func grantName(_ form: [(String, String)]) -> String {
        let grant = form.first { $0.0 == "grant_type" }?.1 ?? "token"
        return grant.split(separator: ":").last.map(String.init) ?? grant
    }

    /// `invalid_grant: Invalid refresh token` style messages from Box's `OAuth2Error` body.
    static func error(from response: HTTPResponse, grant: String) -> AuthError {
        let object = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any]
        let code = object?["error"] as? String ?? object?["code"] as? String
        let detail = object?["error_description"] as? String ?? object?["message"] as? String
        var text = "Box refused the \(grant) request (\(response.status)"
        if let code { text += " \(code)" }
        text += ")"
        if let detail, !detail.isEmpty { text += ": \(detail)" }
        return AuthError(.grantRefused(code ?? "status \(response.status)"), text)
    }
}
