/// A downscoped token (token exchange): the parent's token is exchanged for one limited to `scopes`
/// and, optionally, to one file or folder (`resource`, e.g. `<apiBase>/2.0/folders/123`). Such tokens
/// have no refresh token; a new one is exchanged from the parent's current token when needed.
public struct TokenExchangeSource: TokenSource {
    public let endpoint: TokenEndpoint
    public let parent: any AccessTokenProvider
    public let scopes: [String]
    public let resource: String?

    public init(endpoint: TokenEndpoint, parent: any AccessTokenProvider, scopes: [String], resource: String? = nil) {
        self.endpoint = endpoint
        self.parent = parent
        self.scopes = scopes
        self.resource = resource
    }

    public func fetchToken(previous: TokenInfo?) async throws -> TokenInfo {
        let subject = try await parent.accessToken()
        var form = [
            ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"), ("subject_token", subject),
            ("subject_token_type", "urn:ietf:params:oauth:token-type:access_token"),
            ("scope", scopes.joined(separator: " ")),
        ]
        if let resource { form.append(("resource", resource)) }
        return try await endpoint.requestToken(form)
    }
}
