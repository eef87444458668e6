import Foundation
import Hummingbird

/// Chunked uploads: create a session (`POST /api/2.0/files/upload_sessions`, `POST /api/2.0/files/{id}/upload_sessions`),
/// read it, list its parts, abort it. Parts and commit are in `UploadPartRoute` and `UploadCommitRoute`.
struct UploadSessionRoutes: Sendable {
    let store: Store
    let settings: ServerSettings
    /// Box's smallest file for a session (its fixtures show a 20,000,000-byte chunked upload).
    static let minimumFileSize: Int64 = 20_000_000
    /// Box's part size in its fixtures; doubled for very large files so there are at most 10,000 parts.
    static let basePartSize: Int64 = 8 * 1024 * 1024
    static let maxParts: Int64 = 10_000

    func register(on group: RouterGroup<BoxContext>) {
        group.post("files/upload_sessions") { request, context in try await createForNewFile(request, context: context) }
        group.post("files/:id/upload_sessions") { request, context in
            try await createForNewVersion(request, context: context)
        }
        group.get("files/upload_sessions/:session") { request, context in
            let session = try await Self.session(context, store: store)
            return jsonResponse(try await render(session, request: request))
        }
        group.get("files/upload_sessions/:session/parts") { request, context in
            let session = try await Self.session(context, store: store)
            let offset = try QueryParameters.int(request, "offset") ?? 0
            guard (0...10_000).contains(offset) else {
                throw BoxError.invalidParameter("offset", "Invalid value '\(offset)'. The offset must not exceed 10000")
            }
            let limit = min(max(try QueryParameters.int(request, "limit") ?? 100, 1), 1000)
            let parts = try await store.parts(sessionID: session.id)
            let page = parts.dropFirst(offset).prefix(limit)
            // Box lists parts without their SHA-1 (recorded/Files/ChunkedUploadSessionListParts.json: "sha1": null);
            // the part's own PUT answer carries it.
            return jsonResponse(.object([
                ("entries", .array(page.map { Self.partJSON($0, sha1: false) })), ("offset", .int(offset)),
                ("total_count", .int(parts.count)), ("limit", .int(limit)),
            ]))
        }
        group.delete("files/upload_sessions/:session") { _, context in
            let session = try await Self.session(context, store: store)
            try await store.deleteUploadSession(id: session.id)
            return Response(status: .noContent)
        }
        UploadPartRoute(store: store).register(on: group)
        UploadCommitRoute(store: store, settings: settings).register(on: group)
    }

    private func createForNewFile(_ request: Request, context: BoxContext) async throws -> Response {
        let user = try context.requireUser()
        let body = try await JSONBody.read(request)
        guard let folderValue = body["folder_id"] else {
            throw BoxError.badRequest("Missing destination folder", code: "missing_destination")
        }
        guard let folderText = (folderValue as? String) ?? JSONBody.int64(folderValue).map(String.init),
              Int64(folderText) != nil
        else { throw BoxError.badRequest("Invalid folder id", code: "invalid_folder_id") }
        let size = try Self.fileSize(body)
        guard body["file_name"] != nil else { throw BoxError.badRequest("Missing file name", code: "missing_file_name") }
        let name = try NameRules.validate(body["file_name"])
        let folder = try await ItemLookup(store: store).folder(folderText, context: context, scopes: ItemScopes.upload)
        try await check(name: name, parentID: folder.id!, ownerID: folder.ownerID, size: size, replacing: nil,
                        user: user)
        return try await create(request, user: user, folderID: folder.id, fileID: nil, name: name, size: size)
    }

    private func createForNewVersion(_ request: Request, context: BoxContext) async throws -> Response {
        let user = try context.requireUser()
        let file = try await ItemLookup(store: store).file(context.parameters.get("id"), context: context,
                                                          scopes: ItemScopes.upload)
        try WriteErrors.checkIfMatch(request, item: file)
        let body = try await JSONBody.read(request)
        let size = try Self.fileSize(body)
        let name = body["file_name"] == nil ? file.name : try NameRules.validate(body["file_name"])
        try await check(name: name, parentID: file.parentID!, ownerID: file.ownerID, size: size, replacing: file.id,
                        user: user)
        return try await create(request, user: user, folderID: nil, fileID: file.id, name: name, size: size)
    }

    private func check(name: String, parentID: Int64, ownerID: Int64, size: Int64, replacing: Int64?,
                       user: UserRecord) async throws {
        do {
            try await store.checkUpload(name: name, parentID: parentID, userID: ownerID, size: size,
                                        replacingFileID: replacing)
        } catch let failure as WriteFailure {
            throw WriteErrors.map(failure, renderer: ItemRenderer(store: store, viewer: user), conflictsAsArray: false)
        }
    }

    private func create(_ request: Request, user: UserRecord, folderID: Int64?, fileID: Int64?, name: String,
                        size: Int64) async throws -> Response {
        var partSize = Self.basePartSize
        while (size + partSize - 1) / partSize > Self.maxParts { partSize *= 2 }
        let now = Timestamp.now()
        let session = UploadSessionRecord(
            id: (0..<32).map { _ in String(format: "%X", Int.random(in: 0..<16)) }.joined(), userID: user.id!,
            folderID: folderID, fileID: fileID, fileName: name, fileSize: size, partSize: partSize,
            totalParts: (size + partSize - 1) / partSize, createdAt: now,
            expiresAt: now + settings.current.uploadSessionLifetime, commitCalls: 0)
        try await store.insertUploadSession(session)
        return jsonResponse(try await render(session, request: request), status: .created)
    }

    private static func fileSize(_ body: [String: Any]) throws -> Int64 {
        guard let value = body["file_size"] else { throw BoxError.badRequest("Missing file size", code: "missing_file_size") }
        guard let size = JSONBody.int64(value), size >= 0 else {
            throw BoxError.badRequest("Invalid file size", code: "invalid_file_size")
        }
        guard size >= minimumFileSize else {
            throw BoxError.badRequest("File size is less than minimum allowed for this API: \(minimumFileSize)",
                                      code: "file_size_too_small")
        }
        return size
    }

    private func render(_ session: UploadSessionRecord, request: Request) async throws -> JSONValue {
        let base = RequestBase.url(.upload) + "/api/2.0/files/upload_sessions/" + session.id
        let processed = try await store.parts(sessionID: session.id).count
        return .object([
            ("total_parts", .int(session.totalParts)), ("part_size", .int(session.partSize)),
            ("session_endpoints", .object([
                ("list_parts", .string(base + "/parts")), ("commit", .string(base + "/commit")),
                ("log_event", .string(base + "/log")), ("upload_part", .string(base)), ("status", .string(base)),
                ("abort", .string(base)),
            ])),
            ("session_expires_at", Timestamp.json(session.expiresAt)), ("id", .string(session.id)),
            ("type", .string("upload_session")), ("num_parts_processed", .int(processed)),
        ])
    }

    static func partJSON(_ part: UploadPartRecord, sha1: Bool = true) -> JSONValue {
        .object([("part_id", .string(part.partID)), ("offset", .int(part.partOffset)), ("size", .int(part.size)),
                 ("sha1", sha1 ? .string(part.sha1) : .null)])
    }

    /// The `:session` of the route for the requesting user: 404 unknown, 403 another user's, 410 expired.
    static func session(_ context: BoxContext, store: Store) async throws -> UploadSessionRecord {
        let user = try context.requireUser()
        guard let id = context.parameters.get("session"), let session = try await store.uploadSession(id: id) else {
            throw BoxError.notFound("Upload session not found")
        }
        guard session.userID == user.id else {
            throw BoxError(status: .forbidden, code: "forbidden", message: "Upload session belongs to another user")
        }
        if session.expiresAt <= Timestamp.now() {
            // The row stays (later calls keep answering 410); the parts' bytes go.
            try? FileManager.default.removeItem(at: store.uploadSessionsDirectory.appendingPathComponent(session.id))
            throw BoxError(status: .gone, code: "session_expired", message: "The upload session has expired")
        }
        return session
    }
}
