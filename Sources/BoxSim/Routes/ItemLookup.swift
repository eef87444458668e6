import Hummingbird

/// Resolves the `{id}` of a file or folder route for the requesting user.
struct ItemLookup: Sendable {
    let store: Store

    /// Parses a Box id (digits only); anything else is answered as Box does, with 405.
    static func parseID(_ text: String?) throws -> Int64 {
        guard let text, !text.isEmpty, text.count <= 19, text.allSatisfy({ $0.isASCII && $0.isNumber }),
              let id = Int64(text)
        else { throw BoxError.methodNotAllowed() }
        return id
    }

    /// The folder `{id}` for the request's user and token (downscoped tokens: only their item and below,
    /// and only with one of `scopes` when given).
    /// With `sharedLink`, another user's item is found too when the request's `BoxApi` header (or a token
    /// exchanged for a shared link) names a link to it or to a folder above it (read-only routes only).
    func folder(_ idText: String?, context: BoxContext, scopes: Set<String>? = nil,
                sharedLink: (Request, SharedLinkUse)? = nil) async throws -> ItemRecord {
        let item: ItemRecord
        if let shared = try await sharedItem(idText, isFolder: true, context: context, sharedLink: sharedLink) {
            item = shared
        } else {
            item = try await folder(idText, for: context.requireUser(), access: ItemAccess(scopes: scopes))
        }
        try await checkToken(context.token, item: item, scopes: scopes)
        return item
    }

    func file(_ idText: String?, context: BoxContext, scopes: Set<String>? = nil,
              sharedLink: (Request, SharedLinkUse)? = nil) async throws -> ItemRecord {
        let item: ItemRecord
        if let shared = try await sharedItem(idText, isFolder: false, context: context, sharedLink: sharedLink) {
            item = shared
        } else {
            item = try await file(idText, for: context.requireUser(), access: ItemAccess(scopes: scopes))
        }
        try await checkToken(context.token, item: item, scopes: scopes)
        try await FileLocks.check(item, user: context.user, scopes: scopes, store: store)
        return item
    }

    private func sharedItem(_ idText: String?, isFolder: Bool, context: BoxContext,
                            sharedLink: (Request, SharedLinkUse)?) async throws -> ItemRecord? {
        guard let (request, use) = sharedLink else { return nil }
        return try await SharedLinkAccess(store: store).item(idText, isFolder: isFolder, request: request,
                                                             context: context, use: use)
    }

    /// Enforces a downscoped token's item restriction and scopes (403 insufficient_scope).
    func checkToken(_ token: TokenRecord?, item: ItemRecord, scopes: Set<String>?) async throws {
        guard let token else { return }
        if let limit = token.restrictedItemID, try await !store.isDescendant(item.id!, of: limit) {
            throw BoxError.insufficientScope()
        }
        if let scopes, let held = token.scopes {
            let heldSet = Set(held.split(separator: " ").map(String.init))
            if heldSet.isDisjoint(with: scopes.union(["root_readwrite"])) { throw BoxError.insufficientScope() }
        }
    }

    /// The folder `{id}` ("0" is the user's root), visible to `user`; 404 otherwise.
    func folder(_ idText: String?, for user: UserRecord, access: ItemAccess = .read) async throws -> ItemRecord {
        let id = try Self.parseID(idText)
        let realID = id == 0 ? user.rootFolderID : id
        guard let realID, let item = try await store.item(id: realID), item.isFolder else {
            throw BoxError.itemNotFound("d_\(id)")
        }
        return try await visible(item, to: user, access: access, notFound: .itemNotFound("d_\(id)"))
    }

    /// The file `{id}` visible to `user`; 404 otherwise.
    func file(_ idText: String?, for user: UserRecord, access: ItemAccess = .read) async throws -> ItemRecord {
        let id = try Self.parseID(idText)
        guard let item = try await store.item(id: id), !item.isFolder else { throw BoxError.itemNotFound("f_\(id)") }
        return try await visible(item, to: user, access: access, notFound: .itemNotFound("f_\(id)"))
    }

    /// The owner sees an item; a collaborator on it or a folder above it too, and may do what the role allows
    /// (else 403 `access_denied_insufficient_permissions`); anyone else gets `notFound`.
    private func visible(_ item: ItemRecord, to user: UserRecord, access: ItemAccess, notFound: BoxError) async throws
        -> ItemRecord {
        if item.isRoot && item.id != user.rootFolderID { throw notFound }
        if item.ownerID != user.id {
            guard let role = try await store.collaborationRole(userID: user.id!, itemID: item.id!) else { throw notFound }
            guard CollaborationRoles.allows(role, access, isFolder: item.isFolder) else {
                throw BoxError(status: .forbidden, code: "access_denied_insufficient_permissions",
                               message: "Access denied - insufficient permission")
            }
        }
        if item.itemStatus == "trashed" { throw BoxError.trashed() }
        guard item.itemStatus == "active" else { throw notFound }
        return item
    }
}

/// Query-parameter helpers with Box's validation answers.
enum QueryParameters {
    static func int(_ request: Request, _ name: String) throws -> Int? {
        guard let text = request.uri.queryParameters.get(name) else { return nil }
        guard let value = Int(text) else { throw BoxError.invalidParameter(name, "Invalid value '\(text)'.") }
        return value
    }

    /// Booleans in any case (`True`, `true`, `1`).
    static func bool(_ request: Request, _ name: String) -> Bool {
        guard let text = request.uri.queryParameters.get(name)?.lowercased() else { return false }
        return text == "true" || text == "1"
    }
}
