import Foundation

extension BoxClient {
    /// The most versions Box returns per page of `GET /files/{id}/versions`.
    static let versionPageLimit = 1000

    /// The earlier versions of a file (the current one is not among them; it is the file's
    /// `fileVersionID`): `GET /2.0/files/{id}/versions` with `BoxFileVersion.fields`, offset paging of 1000.
    /// Box documents no order: callers sort (by `createdAt`). Versions deleted on their own come with
    /// `trashedAt` set. A file without earlier versions gives an empty list; an account whose plan keeps
    /// no versions may be refused (403), which is thrown like any other refusal.
    public func fileVersions(fileID: String) async throws -> [BoxFileVersion] {
        try await allPages(
            ["files", fileID, "versions"], query: [("fields", BoxFileVersion.fields)], limit: Self.versionPageLimit,
            markerPaged: false, as: FileVersionDTO.self
        ).map(\.version)
    }

    /// One version of a file (earlier or current): `GET /2.0/files/{id}/versions/{version_id}`.
    public func fileVersion(fileID: String, versionID: String) async throws -> BoxFileVersion {
        let url = apiURL("files", fileID, "versions", versionID, query: [("fields", BoxFileVersion.fields)])
        return try await executeJSON(.get(url), as: FileVersionDTO.self).version
    }
}
