import BoxAPI
import BoxAuth
import CurlHTTP
import Logging

/// The auth steps of a mount's start-up that can fail with a clear line: the account check (with
/// As-User) and the token exchange of a downscoped mount.
enum AuthStartup {
    /// `GET /users/me`; a refused `As-User` (403) becomes a message that says so, and a token Box
    /// rejects (401, no other token to be had) one ending in `rejectedTokenAdvice` (`Account`'s: what to do
    /// for that kind of sign-in).
    static func checkUser(
        _ probe: BoxClient, asUser: String?, rejectedTokenAdvice: String? = nil
    ) async throws -> BoxUser {
        do {
            return try await probe.currentUser()
        } catch let error as BoxAPIError where error.kind == .unauthorized && rejectedTokenAdvice != nil {
            throw StartupError(
                description: "Box rejected the access token (401 \(error.authError ?? "unauthorized")): "
                    + (rejectedTokenAdvice ?? ""))
        } catch let error as BoxAPIError where error.kind == .forbidden && asUser != nil {
            throw StartupError(
                description: "Box refused to act as user \(asUser ?? "") (403 \(error.authError ?? error.code ?? "forbidden")): "
                    + "As-User needs an admin or a service account allowed to act as users, and an active user "
                    + "of the same enterprise")
        } catch let error as BoxAPIError where notBoxLike(error) {
            let answer = if case .decoding = error.kind { "an answer that is not Box's JSON" } else { "HTTP \(error.status)" }
            throw StartupError(
                description: "\(probe.endpoints.apiBase) does not answer like a Box API (\(answer) for /2.0/users/me): "
                    + "check -o endpoint (a Box-compatible server's base URL, e.g. https://api.box.com)")
        }
    }

    /// Answers a Box API never gives to `GET /2.0/users/me` with a working token: the endpoint is
    /// some other server (a web page, a wrong path, another API).
    private static func notBoxLike(_ error: BoxAPIError) -> Bool {
        switch error.kind {
        case .notFound, .badRequest, .unexpectedStatus, .decoding, .conflict, .preconditionFailed: true
        default: false
        }
    }

    /// A copy of `client` whose token is exchanged for one limited to `scopes` (and to the mounted
    /// folder, unless acting as another user, whose folder the parent token does not own).
    static func downscoped(
        _ client: BoxClient, scopes: [String], root: BoxItem, parent: any AccessTokenProvider, http: HTTPClient,
        asUser: String?, logger: Logger
    ) async throws -> BoxClient {
        let resource = asUser == nil ? client.endpoints.apiBase + "/2.0/folders/" + root.id : nil
        let source = TokenExchangeSource(
            endpoint: TokenEndpoint(apiBase: client.endpoints.apiBase, http: http), parent: parent, scopes: scopes,
            resource: resource)
        let exchanged = Authenticator(source: source, logger: logger)
        _ = try await exchanged.accessToken()  // a refused exchange fails the mount now
        logger.info("using a downscoped token (\(scopes.joined(separator: " ")))")
        var copy = BoxClient(
            endpoints: client.endpoints, http: http, tokens: exchanged, retryPolicy: client.retryPolicy, logger: logger)
        if let asUser { copy = copy.asUser(asUser) }
        return copy
    }
}
