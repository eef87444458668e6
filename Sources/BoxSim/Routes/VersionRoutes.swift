import Foundation
import Hummingbird

/// File versions: `GET /2.0/files/{id}/versions` (past versions, newest first; `offset`/`limit` ≤ 1000;
/// offsets past 10,000 refused as Box documents), `GET .../versions/{version_id}`, `POST .../versions/current`
/// (promote: a copy of an old version becomes current), `DELETE .../versions/{version_id}` (to the version
/// trash) and `PUT .../versions/{version_id}` with `{"trashed_at": null}` (restore).
struct VersionRoutes: Sendable {
    let store: Store
    static let maxLimit = 1000
    static let maxOffset = 10_000

    func register(on group: RouterGroup<BoxContext>) {
        let lookup = ItemLookup(store: store)
        let renderer = FileVersionRenderer(store: store)
        group.get("files/:id/versions") { request, context in
            let file = try await lookup.file(context.parameters.get("id"), context: context, scopes: ItemScopes.read)
            let (offset, limit) = try Self.paging(request, defaultLimit: Self.maxLimit, maxLimit: Self.maxLimit)
            let page = try await store.pastVersions(of: file, offset: offset, limit: limit)
            let fields = FieldSelection(query: request.uri.queryParameters.get("fields"))
            var entries: [JSONValue] = []
            for version in page.versions { entries.append(try await renderer.render(version, of: file, fields: fields)) }
            return jsonResponse(.object([("total_count", .int(page.total)), ("entries", .array(entries)),
                                         ("offset", .int(offset)), ("limit", .int(limit))]))
        }
        group.get("files/:id/versions/:version") { request, context in
            let file = try await lookup.file(context.parameters.get("id"), context: context, scopes: ItemScopes.read)
            let version = try await findVersion(context.parameters.get("version"), of: file)
            let fields = FieldSelection(query: request.uri.queryParameters.get("fields"))
            return jsonResponse(try await renderer.render(version, of: file, fields: fields))
        }
        group.post("files/:id/versions/current") { request, context in
            let user = try context.requireUser()
            let file = try await lookup.file(context.parameters.get("id"), context: context, scopes: ItemScopes.upload)
            let body = try await JSONBody.read(request)
            guard let idText = body["id"] as? String ?? JSONBody.int64(body["id"]).map(String.init) else {
                throw BoxError.invalidParameter("id", "'id' is required")
            }
            if let type = body["type"], type as? String != "file_version" {
                throw BoxError.invalidParameter("type", "Invalid value '\(type)'. Expected file_version")
            }
            let old = try await findVersion(idText, of: file)
            do {
                let promoted = try await store.promoteVersion(fileID: file.id!, versionID: old.id!, by: user.id!)
                let updated = try await store.item(id: file.id!) ?? file
                let fields = FieldSelection(query: request.uri.queryParameters.get("fields"))
                return jsonResponse(try await renderer.render(promoted, of: updated, fields: fields), status: .created)
            } catch let failure as WriteFailure {
                throw WriteErrors.map(failure, renderer: ItemRenderer(store: store, viewer: user), conflictsAsArray: false)
            } catch VersionFailure.notFound {
                throw BoxError.notFound()
            }
        }
        group.delete("files/:id/versions/:version") { request, context in
            let user = try context.requireUser()
            let file = try await lookup.file(context.parameters.get("id"), context: context, scopes: ItemScopes.delete)
            let version = try await findVersion(context.parameters.get("version"), of: file)
            do {
                try await store.trashVersion(fileID: file.id!, versionID: version.id!,
                                             ifMatch: request.headers[.ifMatch], by: user.id!)
            } catch VersionFailure.isCurrent {
                throw Self.invalidVersion(version.id!)
            } catch VersionFailure.notFound {
                throw BoxError.notFound()
            } catch WriteFailure.preconditionFailed {
                throw WriteErrors.preconditionFailed()
            }
            return Response(status: .noContent)
        }
        group.put("files/:id/versions/:version") { request, context in
            let user = try context.requireUser()
            let file = try await lookup.file(context.parameters.get("id"), context: context, scopes: ItemScopes.delete)
            let version = try await findVersion(context.parameters.get("version"), of: file)
            let body = try await JSONBody.read(request)
            guard body.keys.contains("trashed_at"), body["trashed_at"] is NSNull else {
                throw BoxError.invalidParameter("trashed_at", "Only 'trashed_at': null (restore) is supported")
            }
            let restored = try await store.restoreVersion(fileID: file.id!, versionID: version.id!, by: user.id!)
            return jsonResponse(try await renderer.render(restored, of: file, fields: .standard))
        }
    }

    /// A version of `file` (the current one included); 404 otherwise.
    private func findVersion(_ text: String?, of file: ItemRecord) async throws -> FileVersionRecord {
        let id = try ItemLookup.parseID(text)
        guard let version = try await store.version(id: id), version.fileID == file.id else { throw BoxError.notFound() }
        return version
    }

    /// Deleting the current version: 400 naming `file_version_id`, as Box answered in box/box-java-sdk#167.
    static func invalidVersion(_ id: Int64) -> BoxError {
        BoxError.invalidParameter("file_version_id", "Invalid value '\(id)'.")
    }

    /// `offset` and `limit` of an offset-paged list: negative values and offsets past 10,000 are 400, limits
    /// are clamped to `maxLimit`.
    static func paging(_ request: Request, defaultLimit: Int, maxLimit: Int) throws -> (offset: Int, limit: Int) {
        let offset = try QueryParameters.int(request, "offset") ?? 0
        guard offset >= 0, offset <= maxOffset else { throw BoxError.invalidParameter("offset", "Invalid value '\(offset)'.") }
        let limit = try QueryParameters.int(request, "limit") ?? defaultLimit
        guard limit >= 0 else { throw BoxError.invalidParameter("limit", "Invalid value '\(limit)'.") }
        return (offset, min(limit, maxLimit))
    }
}
