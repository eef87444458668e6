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
            if let notModified = ConditionalRequest.notModified(request, item: folder) { return notModified }
            let fields = FieldSelection(query: request.uri.queryParameters.get("fields"))
            let renderer = ItemRenderer(store: store, viewer: user)
            return jsonResponse(try await renderer.render(folder, fields: fields), headers: ConditionalRequest.etagHeader(folder))
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

    static func etagHeader(_ item: ItemRecord) -> HTTPFields {
        guard !item.isRoot else { return [:] }
        var headers = HTTPFields()
        headers[.eTag] = "\"\(item.etag)\""
        return headers
    }
}
