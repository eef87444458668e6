import Hummingbird

/// `POST /2.0/files/{id}/copy` and `POST /2.0/folders/{id}/copy` with `{"parent": {"id"}, "name"?}`: 201 with the
/// copy; 409 `item_name_in_use` (one conflict object); copying the root folder answers 500 as Box does.
struct CopyRoutes: Sendable {
    let store: Store

    func register(on group: RouterGroup<BoxContext>) {
        let lookup = ItemLookup(store: store)
        for kind in ["files", "folders"] {
            group.post("\(kind)/:id/copy") { request, context in
                let user = try context.requireUser()
                let source = kind == "folders"
                    ? try await lookup.folder(context.parameters.get("id"), context: context, scopes: ItemScopes.read)
                    : try await lookup.file(context.parameters.get("id"), context: context, scopes: ItemScopes.read)
                if source.isRoot { throw BoxError.internalError() }
                let body = try await JSONBody.read(request)
                guard let parentText = ItemWriteRoutes.parentID(body) else {
                    throw BoxError.invalidParameter("parent", "'parent' is required")
                }
                let name = body["name"] == nil ? nil : try NameRules.validate(body["name"])
                let parent = try await lookup.folder(parentText, context: context, scopes: ItemScopes.upload)
                let renderer = ItemRenderer(store: store, viewer: user)
                do {
                    let copy = try await store.copyItem(id: source.id!, parentID: parent.id!, name: name, by: user.id!)
                    let fields = FieldSelection(query: request.uri.queryParameters.get("fields"))
                    return jsonResponse(try await renderer.render(copy, fields: fields), status: .created)
                } catch let failure as WriteFailure {
                    throw WriteErrors.map(failure, renderer: renderer, conflictsAsArray: false)
                }
            }
        }
    }
}
