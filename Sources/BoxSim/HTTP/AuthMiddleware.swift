import HTTPTypes
import Hummingbird

/// Checks `Authorization: Bearer <token>` and puts the user into the context; 401 as Box answers otherwise.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = BoxContext
    let store: Store
    let limiter: RateLimiter
    let boxLimiter: BoxLimiter

    func handle(_ request: Request, context: BoxContext,
                next: (Request, BoxContext) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization] else { throw BoxError.unauthorized() }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { throw BoxError.unauthorized() }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty, let (user, record) = try await store.authenticate(token: token, now: Timestamp.now())
        else { throw BoxError.unauthorized() }
        var context = context
        context.user = try await actingUser(authenticated: user, asUser: request.headers[Self.asUser])
        context.token = record
        context.state.userID = context.user?.id
        try limiter.check(userID: user.id!)
        try boxLimiter.check(userID: user.id!, method: request.method.rawValue, path: request.uri.path)
        return try await next(request, context)
    }

    static let asUser = HTTPField.Name("as-user")!

    /// Honours `As-User` only for admins and service accounts acting for an active user of the enterprise
    /// (not a service account); otherwise 403 as Box answers.
    private func actingUser(authenticated user: UserRecord, asUser: String?) async throws -> UserRecord {
        guard let asUser = asUser?.trimmingCharacters(in: .whitespaces) else { return user }
        guard ["admin", "service_account"].contains(user.kind), let targetID = Int64(asUser),
              let target = try await store.user(id: targetID), target.enterpriseID == user.enterpriseID,
              target.kind != "service_account", target.status == "active"
        else { throw BoxError.insufficientScope() }
        return target
    }
}
