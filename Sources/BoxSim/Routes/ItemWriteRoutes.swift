import Hummingbird

/// Folder create, and update (rename/move/description) and delete (to trash) of folders and files.
struct ItemWriteRoutes: Sendable {
    let store: Store

    func register(on group: RouterGroup<BoxContext>) {
        let lookup = ItemLookup(store: store)
        group.post("folders") { request, context in
            let user = try context.requireUser()
            let body = try await JSONBody.read(request)
            let name = try NameRules.validate(body["name"])
            guard let parentText = Self.parentID(body) else {
                throw BoxError.invalidParameter("parent", "'parent' is required")
            }
            let parent = try await lookup.folder(parentText, context: context, scopes: ItemScopes.upload)
            let renderer = ItemRenderer(store: store, viewer: user)
            do {
                let folder = try await store.createFolder(name: name, parentID: parent.id!, ownerID: parent.ownerID,
                                                          by: user.id!)
                let fields = FieldSelection(query: request.uri.queryParameters.get("fields"))
                return jsonResponse(try await renderer.render(folder, fields: fields), status: .created)
            } catch let failure as WriteFailure {
                throw WriteErrors.map(failure, renderer: renderer, conflictsAsArray: true)
            }
        }
        for kind in ["folders", "files"] {
            group.put("\(kind)/:id") { request, context in
                let item = kind == "folders"
                    ? try await lookup.folder(context.parameters.get("id"), context: context, scopes: ItemScopes.rename)
                    : try await lookup.file(context.parameters.get("id"), context: context, scopes: ItemScopes.rename)
                return try await update(item, request: request, context: context)
            }
            group.delete("\(kind)/:id") { request, context in
                let item = kind == "folders"
                    ? try await lookup.folder(context.parameters.get("id"), context: context, scopes: ItemScopes.delete)
                    : try await lookup.file(context.parameters.get("id"), context: context, scopes: ItemScopes.delete)
                guard !item.isRoot else { throw BoxError(status: .forbidden, code: "access_denied_insufficient_permissions",
                                                         message: "Access denied - insufficient permission") }
                try WriteErrors.checkIfMatch(request, item: item)
                do {
                    try await store.trash(id: item.id!, recursive: QueryParameters.bool(request, "recursive"),
                                          by: context.user?.id)
                } catch let failure as WriteFailure {
                    throw WriteErrors.map(failure, renderer: ItemRenderer(store: store, viewer: try context.requireUser()),
                                          conflictsAsArray: true)
                }
                return Response(status: .noContent)
            }
        }
    }

    private func update(_ item: ItemRecord, request: Request, context: BoxContext) async throws -> Response {
        let user = try context.requireUser()
        try WriteErrors.checkIfMatch(request, item: item)
        let body = try await JSONBody.read(request)
        let name = body["name"] == nil ? nil : try NameRules.validate(body["name"])
        var parentID: Int64?
        if let parentText = Self.parentID(body) {
            guard !item.isRoot else { throw BoxError.badRequest("The root folder cannot be moved") }
            parentID = try await ItemLookup(store: store).folder(parentText, context: context, scopes: ItemScopes.upload).id
        }
        if item.isRoot && name != nil { throw BoxError(status: .forbidden, code: "access_denied_insufficient_permissions",
                                                       message: "Access denied - insufficient permission") }
        if let sharedLink = body["shared_link"] {
            try await ItemLookup(store: store).checkToken(context.token, item: item, scopes: ItemScopes.share)
            try await SharedLinkUpdate.apply(sharedLink, to: item, by: user, store: store)
        }
        if let lock = body["lock"] { try await FileLocks.apply(lock, to: item, by: user, store: store) }
        let renderer = ItemRenderer(store: store, viewer: user)
        let fields = FieldSelection(query: request.uri.queryParameters.get("fields"))
        if body["shared_link"] != nil || body["lock"] != nil, name == nil, parentID == nil, body["description"] == nil,
           let shared = try await store.item(id: item.id!) {
            return jsonResponse(try await renderer.render(shared, fields: fields))  // only the shared link or lock changed
        }
        do {
            let updated = try await store.updateItem(id: item.id!, name: name, parentID: parentID,
                                                     description: body["description"] as? String, by: user.id!)
            return jsonResponse(try await renderer.render(updated, fields: fields))
        } catch let failure as WriteFailure {
            throw WriteErrors.map(failure, renderer: renderer, conflictsAsArray: item.isFolder)
        }
    }

    /// `parent.id` from a JSON body (string or number).
    static func parentID(_ body: [String: Any]) -> String? {
        guard let parent = body["parent"] as? [String: Any] else { return nil }
        if let text = parent["id"] as? String { return text }
        return JSONBody.int64(parent["id"]).map(String.init)
    }
}
