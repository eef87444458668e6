import Foundation
import Hummingbird

/// The control API (only with `--control`): test hooks that real Box does not have. See docs/BOXSIM.md.
struct ControlRoutes: Sendable {
    let store: Store
    let log: RequestLog
    let settings: ServerSettings
    let faults: FaultInjector

    func register(on router: Router<BoxContext>) {
        let group = router.group("_control")
        group.get("requests") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            let body = "{\"entries\":" + log.readAllAsJSONArray() + "}"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
        }
        group.delete("requests") { _, _ in
            log.clear()
            return Response(status: .noContent)
        }
        group.post("users") { request, _ in
            let body = try await JSONBody.read(request)
            let kind = body["kind"] as? String ?? "user"
            guard ["user", "app_user", "admin"].contains(kind), let name = body["name"] as? String else {
                throw BoxError.badRequest("name is required; kind is user, app_user or admin")
            }
            let login = body["login"] as? String ?? "\(Store.randomToken(length: 10).lowercased())@boxsim.example"
            guard try await store.user(login: login) == nil else {
                throw BoxError(status: .conflict, code: "user_login_already_used", message: "User login already used")
            }
            var user = try await store.createUser(name: name, login: login, kind: kind)
            if let amount = JSONBody.int64(body["space_amount"]) {
                user = try await store.updateUser(id: user.id!, status: nil, spaceAmount: amount) ?? user
            }
            return jsonResponse(UserRenderer.render(user, spaceUsed: 0, fields: .requested(["name", "login", "role",
                                                                                              "status", "space_amount"])),
                                status: .created)
        }
        group.put("users/:id") { request, context in
            let id = try ItemLookup.parseID(context.parameters.get("id"))
            let body = try await JSONBody.read(request)
            guard let user = try await store.updateUser(id: id, status: body["status"] as? String,
                                                        spaceAmount: JSONBody.int64(body["space_amount"]),
                                                        maxUploadSize: JSONBody.int64(body["max_upload_size"]))
            else { throw BoxError.notFound() }
            let used = try await store.spaceUsed(userID: id)
            return jsonResponse(UserRenderer.render(user, spaceUsed: used, fields: .standard))
        }
        group.post("apps") { request, _ in
            let body = try await JSONBody.read(request)
            let keys = (body["public_keys"] as? [[String: Any]] ?? []).compactMap { key -> AppPublicKey? in
                guard let id = key["id"] as? String, let pem = key["pem"] as? String else { return nil }
                return AppPublicKey(id: id, pem: pem)
            }
            let app = try await store.createApp(name: body["name"] as? String ?? "boxsim app",
                                                redirectURI: body["redirect_uri"] as? String, publicKeys: keys,
                                                canGenerateUserTokens: body["can_generate_user_tokens"] as? Bool ?? true)
            return jsonResponse(.object([
                ("client_id", .string(app.clientID)), ("client_secret", .string(app.clientSecret)),
                ("service_account_id", .string(String(app.serviceAccountID))),
                ("enterprise_id", .string(String(Store.enterpriseID))),
            ]), status: .created)
        }
        group.post("tokens") { request, _ in
            let body = try await JSONBody.read(request)
            guard let userID = JSONBody.int64(body["user_id"]), try await store.user(id: userID) != nil else {
                throw BoxError.badRequest("user_id must name an existing user")
            }
            let lifetime = JSONBody.int64(body["expires_in"]) ?? settings.current.accessTokenLifetime
            let issued = try await store.issueTokens(userID: userID, clientID: nil, scopes: body["scopes"] as? String,
                                                     lifetime: lifetime, withRefresh: false)
            return jsonResponse(.object([("access_token", .string(issued.accessToken)),
                                         ("expires_in", .int(issued.expiresIn))]), status: .created)
        }
        group.post("tokens/expire") { request, _ in
            let body = try await JSONBody.read(request)
            guard let token = body["token"] as? String, try await store.expire(token: token) else {
                throw BoxError.notFound()
            }
            return Response(status: .noContent)
        }
        group.post("faults") { request, _ in
            jsonResponse(try faults.add(try await JSONBody.read(request)).json, status: .created)
        }
        group.get("faults") { _, _ in jsonResponse(.object([("entries", .array(faults.rules.map(\.json)))])) }
        group.delete("faults") { _, _ in
            faults.clear()
            return Response(status: .noContent)
        }
        group.get("settings") { _, _ in jsonResponse(settingsJSON()) }
        group.put("settings") { request, _ in
            let body = try await JSONBody.read(request)
            let boxLimits = try LimitControlRoutes.boxLimits(body, current: settings.current.boxLimits)
            settings.update { values in
                values.boxLimits = boxLimits
                if let lifetime = JSONBody.int64(body["access_token_lifetime"]) { values.accessTokenLifetime = lifetime }
                if let auto = body["auto_approve"] as? Bool { values.autoApprove = auto }
                if let lifetime = JSONBody.int64(body["upload_session_lifetime"]) {
                    values.uploadSessionLifetime = lifetime
                }
                if let count = JSONBody.int64(body["commit_pending_responses"]) { values.commitPendingResponses = Int(count) }
                if let seconds = JSONBody.int64(body["commit_retry_after"]) { values.commitRetryAfter = Int(seconds) }
                if let seconds = JSONBody.int64(body["long_poll_timeout"]) { values.longPollTimeout = Int(seconds) }
                if body.keys.contains("rate_limit_per_minute") {
                    values.rateLimitPerMinute = JSONBody.int64(body["rate_limit_per_minute"]).map { Int($0) }
                }
            }
            return jsonResponse(settingsJSON())
        }
    }

    private func settingsJSON() -> JSONValue {
        let values = settings.current
        return .object([("access_token_lifetime", .int(values.accessTokenLifetime)),
                        ("auto_approve", .bool(values.autoApprove)),
                        ("upload_session_lifetime", .int(values.uploadSessionLifetime)),
                        ("commit_pending_responses", .int(values.commitPendingResponses)),
                        ("commit_retry_after", .int(values.commitRetryAfter)),
                        ("long_poll_timeout", .int(values.longPollTimeout)),
                        ("rate_limit_per_minute", values.rateLimitPerMinute.map { .int($0) } ?? .null),
                        ("box_limits", values.boxLimits?.json ?? .null)])
    }
}
