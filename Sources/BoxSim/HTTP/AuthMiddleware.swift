import Hummingbird

/// Checks `Authorization: Bearer <token>` and puts the user into the context; 401 as Box answers otherwise.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = BoxContext
    let store: Store

    func handle(_ request: Request, context: BoxContext,
                next: (Request, BoxContext) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization] else { throw BoxError.unauthorized() }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { throw BoxError.unauthorized() }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty, let (user, record) = try await store.authenticate(token: token, now: Timestamp.now())
        else { throw BoxError.unauthorized() }
        var context = context
        context.user = user
        context.token = record
        context.state.userID = user.id
        return try await next(request, context)
    }
}
