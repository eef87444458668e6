import Hummingbird

/// `GET /2.0/shared_items` with `BoxApi: shared_link=<url>[&shared_link_password=<pw>]`: the shared file
/// (File--Full) or folder (Folder--Full). Like Box, any valid access token may ask (not only the owner's).
struct SharedItemRoutes: Sendable {
    let store: Store

    func register(on group: RouterGroup<BoxContext>) {
        group.get("shared_items") { request, context in
            let user = try context.requireUser()
            guard let value = request.headers[BoxApiHeader.name], let header = BoxApiHeader(value) else {
                throw BoxError.invalidParameter("boxapi", "The BoxApi header must be shared_link=<shared link URL>")
            }
            let (_, item) = try await SharedLinkAccess(store: store).sharedItem(header, user: user)
            try await ItemLookup(store: store).checkToken(context.token, item: item, scopes: ItemScopes.read)
            if let notModified = ConditionalRequest.notModified(request, item: item) { return notModified }
            let fields = FieldSelection(query: request.uri.queryParameters.get("fields"))
            let renderer = ItemRenderer(store: store, viewer: user)
            return jsonResponse(try await renderer.render(item, fields: fields),
                                headers: ConditionalRequest.etagHeader(item))
        }
    }
}
