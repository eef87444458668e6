import Foundation
import Hummingbird

/// `POST /api/2.0/files/upload_sessions/{id}/commit` with `Digest: sha=<base64 SHA-1 of the whole file>`,
/// `{"parts": [...], "attributes": {...}}`, optional `If-Match`/`If-None-Match`. 201 `Files`; 202 +
/// `Retry-After` (empty body) while "processing" (the first N calls, per ServerSettings).
struct UploadCommitRoute: Sendable {
    let store: Store
    let settings: ServerSettings

    func register(on group: RouterGroup<BoxContext>) {
        group.post("files/upload_sessions/:session/commit") { request, context in
            try await commit(request, context: context)
        }
    }

    private func commit(_ request: Request, context: BoxContext) async throws -> Response {
        let user = try context.requireUser()
        let session = try await UploadSessionRoutes.session(context, store: store)
        let expectedSHA1 = try UploadPartRoute.digest(request)
        let body = try await JSONBody.read(request, limit: 4 << 20)
        let stored = try await store.parts(sessionID: session.id)
        try Self.checkParts(body["parts"], stored: stored, session: session)
        if let fileID = session.fileID, let file = try await store.item(id: fileID) {
            try WriteErrors.checkIfMatch(request, item: file)
            if let notModified = ConditionalRequest.notModified(request, item: file), notModified.status == .notModified {
                throw WriteErrors.preconditionFailed()
            }
        }
        let values = settings.current
        if try await store.countCommitCall(sessionID: session.id) < values.commitPendingResponses {
            var headers = HTTPFields()
            headers[.retryAfter] = String(values.commitRetryAfter)
            return Response(status: .accepted, headers: headers)
        }
        let content = try assemble(stored, session: session, expectedSHA1: expectedSHA1,
                                   attributes: body["attributes"] as? [String: Any] ?? [:])
        let renderer = ItemRenderer(store: store, viewer: user)
        let file: ItemRecord
        do {
            if let fileID = session.fileID {
                file = try await store.addVersion(fileID: fileID, newName: nil, content: content,
                                                  ifMatch: request.headers[.ifMatch], by: user.id!)
            } else {
                guard let folderID = session.folderID, let folder = try await store.item(id: folderID),
                      folder.itemStatus == "active"
                else { throw BoxError.notFound() }
                file = try await store.createFile(name: session.fileName, parentID: folderID, ownerID: folder.ownerID,
                                                  content: content, by: user.id!)
            }
        } catch let failure as WriteFailure {
            throw WriteErrors.map(failure, renderer: renderer, conflictsAsArray: false)
        }
        try await store.deleteUploadSession(id: session.id)
        let fields = FieldSelection(query: request.uri.queryParameters.get("fields"))
        return jsonResponse(.object([("total_count", .int(1)), ("entries", .array([try await renderer.render(file, fields: fields)]))]),
                            status: .created)
    }

    /// The commit's parts list must name exactly the stored parts, and those must cover the file (400 `parts_mismatch`).
    static func checkParts(_ value: Any?, stored: [UploadPartRecord], session: UploadSessionRecord) throws {
        guard let listed = value as? [[String: Any]] else { throw BoxError.invalidParameter("parts", "'parts' is required") }
        let named = listed.compactMap { part -> (String, Int64, Int64)? in
            guard let id = part["part_id"] as? String, let offset = JSONBody.int64(part["offset"]),
                  let size = JSONBody.int64(part["size"]) else { return nil }
            return (id, offset, size)
        }.sorted { $0.1 < $1.1 }
        var covered: Int64 = 0
        for part in stored where part.partOffset == covered { covered += part.size }
        let matches = named.count == listed.count && named.count == stored.count
            && zip(named, stored).allSatisfy { $0.0 == $1.partID && $0.1 == $1.partOffset && $0.2 == $1.size }
        guard matches, covered == session.fileSize else {
            throw BoxError.badRequest("The parts list does not match the uploaded parts", code: "parts_mismatch")
        }
    }

    /// Concatenates the parts into a blob (1 MiB reads, SHA-1 while writing) and checks the whole-file digest.
    private func assemble(_ parts: [UploadPartRecord], session: UploadSessionRecord, expectedSHA1: String,
                          attributes: [String: Any]) throws -> FileContent {
        let writer = try BlobWriter(store: store.blobs)
        do {
            var buffer = [UInt8](repeating: 0, count: BlobStore.chunkSize)
            for part in parts {
                let path = store.partPath(sessionID: session.id, offset: part.partOffset)
                let input = open(path, O_RDONLY | O_CLOEXEC)
                guard input >= 0 else { throw BlobStoreError.cannotOpen(path, errno) }
                defer { close(input) }
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, BlobStore.chunkSize) }
                    if count < 0 && errno == EINTR { continue }
                    if count < 0 { throw BlobStoreError.io(path, errno) }
                    if count == 0 { break }
                    try buffer.withUnsafeBytes { try writer.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                }
            }
            let sha1 = writer.finish()
            guard sha1 == expectedSHA1 else {
                throw BoxError.badRequest("The digest of the file did not match what we received", code: "bad_digest")
            }
            let packed = try writer.install(sha1: sha1)
            return FileContent(sha1: sha1, size: writer.size, packed: packed,
                               contentCreatedAt: (attributes["content_created_at"] as? String).flatMap(Timestamp.parse),
                               contentModifiedAt: (attributes["content_modified_at"] as? String).flatMap(Timestamp.parse))
        } catch {
            writer.discard()
            throw error
        }
    }
}
