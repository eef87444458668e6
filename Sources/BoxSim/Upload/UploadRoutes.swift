import Foundation
import Hummingbird

/// Direct uploads as on upload.box.com: `POST /api/2.0/files/content` (new file) and
/// `POST /api/2.0/files/{id}/content` (new version), plus the preflight `OPTIONS /2.0/files/content`
/// (also `OPTIONS /2.0/files/{id}/content` for versions, as the guides describe).
struct UploadRoutes: Sendable {
    let store: Store

    func register(on group: RouterGroup<BoxContext>) {
        group.post("files/content") { request, context in try await uploadNewFile(request, context: context) }
        group.post("files/:id/content") { request, context in try await uploadNewVersion(request, context: context) }
        group.on("files/content", method: .options) { request, context in try await preflight(request, context: context) }
        group.on("files/:id/content", method: .options) { request, context in
            try await preflightVersion(request, context: context)
        }
    }

    private func uploadNewFile(_ request: Request, context: BoxContext) async throws -> Response {
        let user = try context.requireUser()
        let renderer = ItemRenderer(store: store, viewer: user)
        var target: (name: String, parent: ItemRecord)?
        do {
            let upload = try await MultipartUpload.receive(request, store: store, userLimit: user.maxUploadSize) { attributes in
                let name = try NameRules.validate(attributes["name"])
                guard let parentText = ItemWriteRoutes.parentID(attributes) else {
                    throw BoxError.invalidParameter("parent", "'parent' is required")
                }
                let parent = try await ItemLookup(store: store).folder(parentText, context: context,
                                                                      scopes: ItemScopes.upload)
                try await store.checkUpload(name: name, parentID: parent.id!, userID: parent.ownerID, size: nil,
                                            replacingFileID: nil)
                target = (name, parent)
            }
            try upload.checkContentMD5(request)
            guard let target else { throw BoxError.internalError() }
            let file = try await store.createFile(name: target.name, parentID: target.parent.id!,
                                                  ownerID: target.parent.ownerID, content: try upload.install(),
                                                  by: user.id!)
            return try await filesResponse(file, request: request, renderer: renderer, status: .created)
        } catch let failure as WriteFailure {
            throw WriteErrors.map(failure, renderer: renderer, conflictsAsArray: false)
        }
    }

    private func uploadNewVersion(_ request: Request, context: BoxContext) async throws -> Response {
        let user = try context.requireUser()
        let file = try await ItemLookup(store: store).file(context.parameters.get("id"), context: context,
                                                          scopes: ItemScopes.upload)
        try WriteErrors.checkIfMatch(request, item: file)
        let renderer = ItemRenderer(store: store, viewer: user)
        var newName: String?
        do {
            let upload = try await MultipartUpload.receive(request, store: store, userLimit: user.maxUploadSize) { attributes in
                if let name = attributes["name"], !(name is NSNull) {
                    newName = try NameRules.validate(name)
                    try await store.checkUpload(name: newName!, parentID: file.parentID!, userID: file.ownerID,
                                                size: nil, replacingFileID: file.id)
                }
            }
            try upload.checkContentMD5(request)
            let updated = try await store.addVersion(fileID: file.id!, newName: newName == file.name ? nil : newName,
                                                     content: try upload.install(),
                                                     ifMatch: request.headers[.ifMatch], by: user.id!)
            return try await filesResponse(updated, request: request, renderer: renderer, status: .ok)
        } catch let failure as WriteFailure {
            throw WriteErrors.map(failure, renderer: renderer, conflictsAsArray: false)
        }
    }

    /// `OPTIONS /2.0/files/content` with `{name, parent: {id}, size}`: 200 `{upload_url, upload_token}` or
    /// the error the upload would get (409 with one conflict object, 403 quota/size, 404 parent, 400 name).
    private func preflight(_ request: Request, context: BoxContext) async throws -> Response {
        let user = try context.requireUser()
        let body = try await JSONBody.read(request)
        let name = try NameRules.validate(body["name"])
        guard let parentText = ItemWriteRoutes.parentID(body) else {
            throw BoxError.invalidParameter("parent", "'parent' is required")
        }
        let parent = try await ItemLookup(store: store).folder(parentText, context: context, scopes: ItemScopes.upload)
        do {
            try await store.checkUpload(name: name, parentID: parent.id!, userID: parent.ownerID,
                                        size: JSONBody.int64(body["size"]), replacingFileID: nil)
        } catch let failure as WriteFailure {
            throw WriteErrors.map(failure, renderer: ItemRenderer(store: store, viewer: user), conflictsAsArray: false)
        }
        return preflightAnswer(request)
    }

    private func preflightVersion(_ request: Request, context: BoxContext) async throws -> Response {
        let user = try context.requireUser()
        let file = try await ItemLookup(store: store).file(context.parameters.get("id"), context: context,
                                                          scopes: ItemScopes.upload)
        let body = try await JSONBody.read(request)
        let name = body["name"] == nil ? file.name : try NameRules.validate(body["name"])
        do {
            try await store.checkUpload(name: name, parentID: file.parentID!, userID: file.ownerID,
                                        size: JSONBody.int64(body["size"]), replacingFileID: file.id)
        } catch let failure as WriteFailure {
            throw WriteErrors.map(failure, renderer: ItemRenderer(store: store, viewer: user), conflictsAsArray: false)
        }
        return preflightAnswer(request)
    }

    private func preflightAnswer(_ request: Request) -> Response {
        let token = Store.randomToken(length: 48)
        return jsonResponse(.object([
            ("upload_url", .string(RequestBase.url(.upload) + "/api/2.0/files/content?upload_session_id=" + token)),
            ("upload_token", .string(token)),
        ]))
    }

    /// Box's `Files` answer: `{total_count: 1, entries: [File--Full]}` (with `fields=`: the requested fields).
    private func filesResponse(_ file: ItemRecord, request: Request, renderer: ItemRenderer,
                               status: HTTPResponse.Status) async throws -> Response {
        let fields = FieldSelection(query: request.uri.queryParameters.get("fields"))
        let entry = try await renderer.render(file, fields: fields)
        return jsonResponse(.object([("total_count", .int(1)), ("entries", .array([entry]))]), status: status,
                            headers: ConditionalRequest.etagHeader(file))
    }
}
