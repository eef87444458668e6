import Foundation
import Hummingbird

/// The consent page at `/api/oauth2/authorize` (account.box.com's path). It redirects back to the app with
/// `code` and `state`; with auto-approve (tests) it does so at once, else after the form is submitted.
/// boxsim extension: `login=<user login>` picks who approves (default: the admin).
struct AuthorizeRoutes: Sendable {
    let store: Store
    let settings: ServerSettings

    func register(on router: Router<BoxContext>) {
        router.get("api/oauth2/authorize") { request, _ in
            var query: [String: String] = [:]
            for (key, value) in request.uri.queryParameters { query[String(key)] = String(value) }
            return try await handle(query, submitted: settings.current.autoApprove)
        }
        router.post("api/oauth2/authorize") { request, _ in
            try await handle(try await FormBody.read(request), submitted: true)
        }
    }

    private func handle(_ parameters: [String: String], submitted: Bool) async throws -> Response {
        guard parameters["response_type"] == "code" else { return page("Error: unsupported_response_type", 400) }
        guard let clientID = parameters["client_id"], let app = try await store.app(clientID: clientID) else {
            return page("Error: invalid_client", 400)
        }
        let redirect = parameters["redirect_uri"].flatMap { $0.isEmpty ? nil : $0 }
        if let redirect, let registered = app.redirectURI, redirect != registered {
            return page("Error: redirect_uri_mismatch", 400)
        }
        guard let target = redirect ?? app.redirectURI else { return page("Error: redirect_uri_missing", 400) }
        guard submitted else { return consentForm(parameters, appName: app.name) }

        var reply: [(String, String)]
        if parameters["decision"] == "deny" {
            reply = [("error", "access_denied"), ("error_description", "The user denied access to your application")]
        } else {
            guard let user = try await approvingUser(login: parameters["login"]) else {
                return page("Error: unknown login", 400)
            }
            let code = try await store.createAuthCode(clientID: clientID, userID: user.id!, redirectURI: redirect,
                                                      scopes: parameters["scope"].flatMap { $0.isEmpty ? nil : $0 })
            reply = [("code", code)]
        }
        if let state = parameters["state"] { reply.append(("state", state)) }
        let query = reply.map { "\($0.0)=\(FormBody.encode($0.1))" }.joined(separator: "&")
        var headers = HTTPFields()
        headers[.location] = target + (target.contains("?") ? "&" : "?") + query
        return Response(status: .found, headers: headers)
    }

    private func approvingUser(login: String?) async throws -> UserRecord? {
        guard let login, !login.isEmpty else { return try store.ensureAdmin() }
        return try await store.user(login: login)
    }

    private func consentForm(_ parameters: [String: String], appName: String) -> Response {
        let hidden = parameters.filter { $0.key != "decision" }.map {
            "<input type=\"hidden\" name=\"\(html($0.key))\" value=\"\(html($0.value))\">"
        }.joined(separator: "\n")
        return page("""
            <h1>Grant access to Box</h1>
            <p>\(html(appName)) would like to access your Box account.</p>
            <form method="post" action="/api/oauth2/authorize">
            \(hidden)
            <label>Login <input name="login" value="\(html(parameters["login"] ?? ""))"></label>
            <button name="decision" value="allow">Grant access to Box</button>
            <button name="decision" value="deny">Deny access</button>
            </form>
            """, 200)
    }

    private func page(_ body: String, _ status: Int) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        let text = "<!doctype html><html><head><title>boxsim</title></head><body>\(body)</body></html>"
        return Response(status: .init(code: status), headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    private func html(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
