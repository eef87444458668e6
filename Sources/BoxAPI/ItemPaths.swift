extension BoxClient {
    /// A file or folder with the folders above it: `GET /2.0/files/{id}` or `GET /2.0/folders/{id}` with
    /// `BoxItemWithPath.fields` (where an item is, e.g. the old place of something in the trash).
    public func itemWithPath(id: String, kind: BoxItem.Kind) async throws -> BoxItemWithPath {
        let url = apiURL(kind == .folder ? "folders" : "files", id, query: [("fields", BoxItemWithPath.fields)])
        return try await executeJSON(.get(url), as: ItemWithPathDTO.self).value
    }
}
