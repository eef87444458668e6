import CurlHTTP
import Foundation

extension BoxClient {
    /// `POST <upload>/2.0/files/upload_sessions`: a session for a new file (Box accepts sessions only
    /// for files of at least 20 MB: 400 `file_size_too_small` below). Includes Box's preflight, so
    /// 409 `item_name_in_use` and 403 `storage_limit_exceeded` come from here.
    ///
    /// Retried like an idempotent call: a repeat after a lost answer leaves at worst an unused
    /// session behind, which stores nothing and expires.
    public func createUploadSession(parentID: String, name: String, size: Int64) async throws -> UploadSession {
        var request = BoxRequest.json(
            .post, uploadURL("files", "upload_sessions"), ["folder_id": parentID, "file_size": size, "file_name": name])
        request.acceptedStatuses = [200, 201]
        request.isIdempotent = true
        return try await executeJSON(request, as: UploadSessionDTO.self).session
    }

    /// `POST <upload>/2.0/files/{id}/upload_sessions`: a session for a new version of `fileID`.
    public func createUploadSession(fileID: String, size: Int64, name: String? = nil) async throws -> UploadSession {
        var body: [String: Any] = ["file_size": size]
        if let name { body["file_name"] = name }
        var request = BoxRequest.json(.post, uploadURL("files", fileID, "upload_sessions"), body)
        request.acceptedStatuses = [200, 201]
        request.isIdempotent = true
        return try await executeJSON(request, as: UploadSessionDTO.self).session
    }

    /// `GET` the session's status URL: whether it is alive and how many parts Box has processed.
    public func uploadSession(_ session: UploadSession) async throws -> UploadSession {
        try await executeJSON(.get(session.statusURL), as: UploadSessionDTO.self).session
    }

    /// `PUT` one part: `range` of the file at `path` (a multiple of `partSize` long, except the last),
    /// with `Content-Range: bytes lo-hi/total` and `Digest: sha=<base64 SHA-1 of the part>`, computed
    /// here by streaming the range unless given. Retried blindly: a part is identified by its range,
    /// so a repeat either stores the same bytes or meets 409 (`range_overlaps_existing_part`) when
    /// the first attempt landed; the caller then finds the part in `uploadedParts`.
    public func uploadPart(
        _ session: UploadSession, path: String, range: Range<Int64>, fileSize: Int64, sha1: FileDigest.Digest? = nil
    ) async throws -> UploadPart {
        let digest = try sha1 ?? FileDigest.sha1(path: path, offset: range.lowerBound, length: Int64(range.count))
        var request = BoxRequest(method: .put, url: session.uploadPartURL)
        request.body = .file(path: path, offset: range.lowerBound, length: Int64(range.count))
        request.headers = [
            ("Content-Type", "application/octet-stream"),
            ("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(fileSize)"),
            ("Digest", "sha=\(digest.base64)"),
        ]
        request.isIdempotent = true
        request.acceptedStatuses = [200, 201]
        var part = try await executeJSON(request, as: UploadedPartDTO.self).part
        if part.sha1 == nil { part.sha1 = digest.hex }
        return part
    }

    /// Every part Box holds for the session (`GET .../parts`, 1000 per page).
    public func uploadedParts(_ session: UploadSession) async throws -> [UploadPart] {
        var parts: [UploadPart] = []
        while true {
            let separator = session.listPartsURL.contains("?") ? "&" : "?"
            let url = session.listPartsURL + separator + "offset=\(parts.count)&limit=1000"
            let page = try await executeJSON(.get(url), as: UploadPartsPageDTO.self)
            parts += page.entries.map(\.part)
            guard !page.entries.isEmpty, let total = page.totalCount, Int64(parts.count) < total else { return parts }
        }
    }

    /// `DELETE` the session and the parts it holds (irreversible; 404 if already gone is not an error).
    public func abortUploadSession(_ session: UploadSession) async throws {
        var request = BoxRequest(method: .delete, url: session.abortURL)
        request.acceptedStatuses = [200, 204, 404]
        request.isIdempotent = true
        _ = try await execute(request)
    }
}
