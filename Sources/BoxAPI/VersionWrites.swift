import Foundation

extension BoxClient {
    /// `POST /2.0/files/{id}/versions/current` with `{"type": "file_version", "id": versionID}`: promotes an
    /// earlier version, i.e. Box makes a new current version with that version's content (201). A repeat after
    /// a 5xx or a lost answer can only make one more version with the same content, so it is retried like an
    /// idempotent call. A trashed or unknown version is a 404.
    public func promoteVersion(fileID: String, versionID: String) async throws {
        var request = BoxRequest.json(
            .post, apiURL("files", fileID, "versions", "current"), ["type": "file_version", "id": versionID])
        request.acceptedStatuses = [201]
        request.isIdempotent = true
        _ = try await execute(request)
    }
}
