import Hummingbird

/// `GET /2.0/users/me`.
struct UserRoutes: Sendable {
    let store: Store

    func register(on group: RouterGroup<BoxContext>) {
        group.get("users/me") { request, context in
            let user = try context.requireUser()
            let used = try await store.spaceUsed(userID: user.id!)
            let fields = FieldSelection(query: request.uri.queryParameters.get("fields"))
            return jsonResponse(UserRenderer.render(user, spaceUsed: used, fields: fields))
        }
    }
}
