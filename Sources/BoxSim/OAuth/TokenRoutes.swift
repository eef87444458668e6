import Foundation
import Hummingbird

/// `POST /oauth2/token` and `POST /api/oauth2/token` (every grant Box supports) and `POST /oauth2/revoke`.
struct TokenRoutes: Sendable {
    let store: Store
    let settings: ServerSettings

    static let jwtGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    static let exchangeGrant = "urn:ietf:params:oauth:grant-type:token-exchange"
    static let accessTokenType = "urn:ietf:params:oauth:token-type:access_token"

    func register(on router: Router<BoxContext>) {
        // api.box.com's path and app.box.com's (`/api/oauth2/token`, which rclone uses): the same endpoint.
        for path in ["oauth2/token", "api/oauth2/token"] {
            router.post(RouterPath(path)) { request, context in
                do {
                    let form = try await FormBody.read(request)
                    context.state.update { $0.grantType = form["grant_type"] }
                    return try await token(form: form, request: request, context: context)
                } catch let error as OAuthError {
                    return error.response
                }
            }
        }
        router.post("oauth2/revoke") { request, _ in
            do {
                let form = try await FormBody.read(request)
                _ = try await authenticateClient(form: form, request: request)
                if let token = form["token"], !token.isEmpty { try await store.revoke(token: token) }
                return Response(status: .ok)
            } catch let error as OAuthError {
                return error.response
            }
        }
    }

    private func token(form: [String: String], request: Request, context: BoxContext) async throws -> Response {
        let lifetime = settings.current.accessTokenLifetime
        switch form["grant_type"] {
        case "authorization_code":
            let app = try await authenticateClient(form: form, request: request)
            guard let code = form["code"], let grant = try await store.consumeAuthCode(code),
                  grant.clientID == app.clientID
            else { throw OAuthError.grant("The authorization code is invalid or has expired") }
            if let uri = form["redirect_uri"], let expected = grant.redirectURI, uri != expected {
                throw OAuthError.grant("The redirect_uri does not match the authorization request")
            }
            return try await respond(store.issueTokens(userID: grant.userID, clientID: app.clientID,
                                                       scopes: grant.scopes, lifetime: lifetime, withRefresh: true))
        case "refresh_token":
            let app = try await authenticateClient(form: form, request: request)
            guard let refresh = form["refresh_token"],
                  let old = try await store.consumeRefreshToken(refresh, clientID: app.clientID)
            else { throw OAuthError.grant("Invalid refresh token") }
            return try await respond(store.issueTokens(userID: old.userID, clientID: app.clientID, scopes: old.scopes,
                                                       lifetime: lifetime, withRefresh: true))
        case "client_credentials":
            let app = try await authenticateClient(form: form, request: request)
            let userID = try await subject(type: form["box_subject_type"], id: form["box_subject_id"], app: app)
            return try await respond(store.issueTokens(userID: userID, clientID: app.clientID, scopes: nil,
                                                       lifetime: lifetime, withRefresh: false))
        case Self.jwtGrant:
            let app = try await authenticateClient(form: form, request: request)
            guard let assertion = form["assertion"] else { throw OAuthError.invalidRequest("Missing assertion") }
            let audiences = [JWTAssertion.boxAudience, RequestBase.url(.api) + "/oauth2/token",
                             RequestBase.urls.requestBase + "/oauth2/token"]
            let jwt = try JWTAssertion.verify(assertion, app: app, acceptedAudiences: audiences, now: Timestamp.now())
            guard try await store.useJWTID(jwt.jti, expiresAt: jwt.expiresAt) else {
                throw OAuthError.grant("Please check the 'jti' claim. A unique 'jti' value is required.")
            }
            let userID = try await subject(type: jwt.subjectType, id: jwt.subject, app: app)
            return try await respond(store.issueTokens(userID: userID, clientID: app.clientID, scopes: nil,
                                                       lifetime: lifetime, withRefresh: false))
        case Self.exchangeGrant:
            return try await TokenExchange(store: store).exchange(form: form, lifetime: lifetime)
        default:
            throw OAuthError.unsupportedGrant
        }
    }

    /// The app named by `client_id`/`client_secret` in the form or in HTTP Basic auth.
    private func authenticateClient(form: [String: String], request: Request) async throws -> AppRecord {
        var clientID = form["client_id"]
        var secret = form["client_secret"]
        if let header = request.headers[.authorization], header.lowercased().hasPrefix("basic "),
           let decoded = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
           let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":") {
            clientID = clientID ?? FormBody.decode(String(text[..<colon]))
            secret = secret ?? FormBody.decode(String(text[text.index(after: colon)...]))
        }
        guard let clientID, let secret, let app = try await store.app(clientID: clientID),
              app.clientSecret == secret
        else { throw OAuthError.invalidClient }
        return app
    }

    /// The user a CCG/JWT grant acts as: the service account (enterprise) or an enterprise user.
    private func subject(type: String?, id: String?, app: AppRecord) async throws -> Int64 {
        switch type {
        case "enterprise":
            guard id == String(Store.enterpriseID) else { throw OAuthError.invalidGrant }
            return app.serviceAccountID
        case "user":
            guard app.canGenerateUserTokens, let id, let userID = Int64(id),
                  let user = try await store.user(id: userID), user.enterpriseID == Store.enterpriseID,
                  user.kind != "service_account", user.status == "active"
            else { throw OAuthError.invalidGrant }
            return userID
        default:
            throw OAuthError.invalidGrant
        }
    }

    private func respond(_ tokens: IssuedTokens) -> Response {
        var pairs: [(String, JSONValue)] = [
            ("access_token", .string(tokens.accessToken)), ("expires_in", .int(tokens.expiresIn)),
            ("restricted_to", .array([])),
        ]
        if let refresh = tokens.refreshToken { pairs.append(("refresh_token", .string(refresh))) }
        pairs.append(("token_type", .string("bearer")))
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        return jsonResponse(.object(pairs), headers: headers)
    }
}
