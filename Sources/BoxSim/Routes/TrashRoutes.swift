import Foundation
import Hummingbird

/// The trash: `GET /2.0/folders/trash/items` (what the user deleted directly, folders first; offset paging with
/// `sort`/`direction`, or `usemarker`), `GET`/`DELETE /2.0/{files,folders}/{id}/trash` (show, purge for good) and
/// restore with `POST /2.0/{files,folders}/{id}` (`name`, `parent.id` used when the old parent is gone; 409
/// `item_name_in_use` when the name is taken). An item that went to the trash with a folder above it is 404 on
/// its own, as Box documents.
struct TrashRoutes: Sendable {
    let store: Store
    static let defaultLimit = 100

    func register(on group: RouterGroup<BoxContext>) {
        group.get("folders/trash/items") { request, context in
            let user = try context.requireUser()
            return jsonResponse(try await listing(request, user: user))
        }
        for kind in ["files", "folders"] {
            group.get("\(kind)/:id/trash") { request, context in
                let user = try context.requireUser()
                let item = try await trashed(context.parameters.get("id"), isFolder: kind == "folders", context: context)
                let fields = FieldSelection(query: request.uri.queryParameters.get("fields"))
                return jsonResponse(try await ItemRenderer(store: store, viewer: user).render(item, fields: fields))
            }
            group.delete("\(kind)/:id/trash") { _, context in
                let item = try await trashed(context.parameters.get("id"), isFolder: kind == "folders", context: context)
                try await store.purge(id: item.id!)
                return Response(status: .noContent)
            }
            group.post("\(kind)/:id") { request, context in
                let user = try context.requireUser()
                let item = try await trashed(context.parameters.get("id"), isFolder: kind == "folders", context: context)
                let body = try await JSONBody.read(request)
                let name = body["name"] == nil ? nil : try NameRules.validate(body["name"])
                var fallback: Int64?
                if let text = ItemWriteRoutes.parentID(body) {
                    let parentID = try ItemLookup.parseID(text)
                    fallback = parentID == 0 ? user.rootFolderID : parentID
                }
                let renderer = ItemRenderer(store: store, viewer: user)
                do {
                    let restored = try await store.restore(id: item.id!, name: name, fallbackParentID: fallback, by: user.id!)
                    let fields = FieldSelection(query: request.uri.queryParameters.get("fields"))
                    return jsonResponse(try await renderer.render(restored, fields: fields), status: .created)
                } catch let failure as WriteFailure {
                    throw WriteErrors.map(failure, renderer: renderer, conflictsAsArray: item.isFolder)
                }
            }
        }
    }

    /// The trashed item `{id}` of the user, deleted directly; 404 `not_found` otherwise (also for active items).
    private func trashed(_ idText: String?, isFolder: Bool, context: BoxContext) async throws -> ItemRecord {
        let user = try context.requireUser()
        let id = try ItemLookup.parseID(idText)
        guard let item = try await store.trashedItem(id: id, ownerID: user.id!), item.isFolder == isFolder else {
            throw BoxError.itemNotFound((isFolder ? "d_" : "f_") + String(id))
        }
        try await ItemLookup(store: store).checkToken(context.token, item: item, scopes: ItemScopes.delete)
        return item
    }

    private func listing(_ request: Request, user: UserRecord) async throws -> JSONValue {
        let fields = FieldSelection(query: request.uri.queryParameters.get("fields"))
        let renderer = ItemRenderer(store: store, viewer: user)
        let usemarker = QueryParameters.bool(request, "usemarker")
        let order = try ListingOrder(request: request)
        var (offset, limit) = try VersionRoutes.paging(request, defaultLimit: Self.defaultLimit,
                                                       maxLimit: FolderListing.maxLimit)
        if usemarker, let marker = request.uri.queryParameters.get("marker"), !marker.isEmpty {
            guard let decoded = Self.decodeMarker(marker) else {
                throw BoxError.invalidParameter("marker", "Invalid value '\(marker)'.")
            }
            offset = decoded
        }
        let page = try await store.trashItems(ownerID: user.id!, offset: offset, limit: limit, order: order)
        let entries = try await renderer.entries(page.items, fields: fields)
        if usemarker {
            let more = offset + page.items.count < page.total
            return .object([("entries", .array(entries)), ("limit", .int(limit)),
                            ("next_marker", more ? .string(Self.encodeMarker(offset + page.items.count)) : .null),
                            ("order", order.json)])
        }
        return .object([("total_count", .int(page.total)), ("entries", .array(entries)), ("offset", .int(offset)),
                        ("limit", .int(limit)), ("order", order.json)])
    }

    /// Trash markers are opaque to clients: base64url of the next offset.
    static func encodeMarker(_ offset: Int) -> String {
        Data("trash:\(offset)".utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
    }

    static func decodeMarker(_ marker: String) -> Int? {
        let padded = marker + String(repeating: "=", count: (4 - marker.count % 4) % 4)
        guard let data = Data(base64Encoded: padded), let text = String(data: data, encoding: .utf8),
              text.hasPrefix("trash:"), let offset = Int(text.dropFirst(6)), offset >= 0 else { return nil }
        return offset
    }
}
