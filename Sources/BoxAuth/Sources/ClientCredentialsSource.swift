/// Client Credentials Grant: the app's id and secret buy a token for its service account
/// (`enterprise`, with the enterprise id) or for a user of the enterprise (`user`, with the user id).
/// Nothing to refresh with: a new token is simply requested again.
public struct ClientCredentialsSource: TokenSource {
    public enum Subject: Sendable, Equatable {
        case enterprise(String)
        case user(String)

        var form: [(String, String)] {
            switch self {
            case .enterprise(let id): [("box_subject_type", "enterprise"), ("box_subject_id", id)]
            case .user(let id): [("box_subject_type", "user"), ("box_subject_id", id)]
            }
        }
    }

    public let endpoint: TokenEndpoint
    public let clientID: String
    let clientSecret: String
    public let subject: Subject

    public init(endpoint: TokenEndpoint, clientID: String, clientSecret: String, subject: Subject) {
        self.endpoint = endpoint
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.subject = subject
    }

    public func fetchToken(previous: TokenInfo?) async throws -> TokenInfo {
        try await endpoint.requestToken(
            [("grant_type", "client_credentials"), ("client_id", clientID), ("client_secret", clientSecret)]
                + subject.form)
    }

    public func revoke(_ token: TokenInfo) async throws {
        try await endpoint.revoke(token: token.accessToken, clientID: clientID, clientSecret: clientSecret)
    }
}
