extension BoxClient {
    /// `GET /2.0/files/{id}` with `BoxItem.fields`.
    public func file(id: String) async throws -> BoxItem {
        let url = apiURL("files", id, query: [("fields", BoxItem.fields)])
        return try await executeJSON(.get(url), as: ItemDTO.self).item
    }
}
