import Hummingbird

/// File reads: `GET /2.0/files/{id}` and `GET /2.0/files/{id}/content` (302 to a signed `/dl/` URL).
struct FileRoutes: Sendable {
    let store: Store
    let signer: DownloadTokenSigner

    func register(on group: RouterGroup<BoxContext>) {
        let lookup = ItemLookup(store: store)
        group.get("files/:id") { request, context in
            let user = try context.requireUser()
            let file = try await lookup.file(context.parameters.get("id"), context: context, scopes: ItemScopes.read,
                                            sharedLink: (request, .read))
            return try await ConditionalRequest.itemResponse(request, item: file, store: store, viewer: user)
        }
        group.get("files/:id/content") { request, context in
            let file = try await lookup.file(context.parameters.get("id"), context: context, scopes: ItemScopes.download,
                                            sharedLink: (request, .download))
            var versionID = file.versionID ?? 0
            if let requested = request.uri.queryParameters.get("version") {
                let id = try ItemLookup.parseID(requested)
                guard let version = try await store.version(id: id), version.fileID == file.id else {
                    throw BoxError.notFound()
                }
                versionID = id
            }
            let token = signer.sign(.init(fileID: file.id!, versionID: versionID,
                                          expiresAt: Timestamp.now() + DownloadTokenSigner.lifetime))
            // Box puts downloads in the downloader's `all` event stream (not in `changes`).
            if let user = context.user { try await store.recordEvent(type: "ITEM_DOWNLOAD", itemID: file.id!, userID: user.id!) }
            var headers = HTTPFields()
            headers[.location] = RequestBase.url(.dl) + "/dl/" + token
            return Response(status: .found, headers: headers)
        }
    }
}
