import Hummingbird

/// Errors of `/oauth2/token` and `/oauth2/revoke`: `{"error": ..., "error_description": ...}`.
struct OAuthError: Error {
    var status: HTTPResponse.Status = .badRequest
    var error: String
    var description: String

    static let invalidGrant = OAuthError(error: "invalid_grant", description: "Grant credentials are invalid")
    static let invalidClient = OAuthError(error: "invalid_client", description: "The client credentials are invalid")
    static let unsupportedGrant = OAuthError(error: "invalid_request",
                                             description: "Invalid grant_type parameter or parameter missing")

    static func invalidRequest(_ description: String) -> OAuthError {
        OAuthError(error: "invalid_request", description: description)
    }

    static func grant(_ description: String) -> OAuthError {
        OAuthError(error: "invalid_grant", description: description)
    }

    var response: Response {
        jsonResponse(.object([("error", .string(error)), ("error_description", .string(description))]),
                     status: status)
    }
}
