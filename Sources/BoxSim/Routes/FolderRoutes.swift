import Hummingbird

/// Folder reads: `GET /2.0/folders/{id}` and `GET /2.0/folders/{id}/items`.
struct FolderRoutes: Sendable {
    let store: Store

    func register(on group: RouterGroup<BoxContext>) {
        let lookup = ItemLookup(store: store)
        group.get("folders/:id") { request, context in
            let user = try context.requireUser()
            let folder = try await lookup.folder(context.parameters.get("id"), context: context, scopes: ItemScopes.read,
                                                sharedLink: (request, .read))
            return try await ConditionalRequest.itemResponse(request, item: folder, store: store, viewer: user)
        }
        group.get("folders/:id/items") { request, context in
            let user = try context.requireUser()
            let folder = try await lookup.folder(context.parameters.get("id"), context: context, scopes: ItemScopes.read,
                                                sharedLink: (request, .read))
            let renderer = ItemRenderer(store: store, viewer: user)
            return jsonResponse(try await FolderListing(store: store).list(folder, request: request, renderer: renderer))
        }
    }
}

/// `If-None-Match` on item reads (304 when the etag matches), and the `ETag` response header.
enum ConditionalRequest {
    static func notModified(_ request: Request, item: ItemRecord) -> Response? {
        guard let header = request.headers[.ifNoneMatch], !item.isRoot else { return nil }
        let tags = header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let etag = String(item.etag)
        guard tags.contains(etag) || tags.contains("\"\(etag)\"") || tags.contains("*") else { return nil }
        return Response(status: .notModified, headers: etagHeader(item))
    }

    /// The answer to a GET of one item: 304 when `If-None-Match` matches, else the item with the
    /// requested `fields` and its `ETag`.
    static func itemResponse(_ request: Request, item: ItemRecord, store: Store, viewer: UserRecord) async throws -> Response {
        if let notModified = notModified(request, item: item) { return notModified }
        let fields = FieldSelection(query: request.uri.queryParameters.get("fields"))
        let rendered = try await ItemRenderer(store: store, viewer: viewer).render(item, fields: fields)
        return jsonResponse(rendered, headers: etagHeader(item))
    }

    static func etagHeader(_ item: ItemRecord) -> HTTPFields {
        guard !item.isRoot else { return [:] }
        var headers = HTTPFields()
        headers[.eTag] = "\"\(item.etag)\""
        return headers
    }
}
