extension BoxClient {
    /// The most entries Box returns per listing page.
    static let folderPageLimit = 1000

    /// `GET /2.0/folders/{id}` with `BoxItem.fields`. The root folder is `"0"`.
    public func folder(id: String) async throws -> BoxItem {
        let url = apiURL("folders", id, query: [("fields", BoxItem.fields)])
        return try await executeJSON(.get(url), as: ItemDTO.self).item
    }

    /// Every entry of a folder: `GET /2.0/folders/{id}/items` with marker paging (`usemarker=true`,
    /// `limit=1000`, `fields=BoxItem.fields`), one request per 1000 entries. Falls back to offset
    /// paging if a server answers without `next_marker`.
    public func folderItems(id: String) async throws -> [BoxItem] {
        try await allPages(
            ["folders", id, "items"], query: [("fields", BoxItem.fields)], limit: Self.folderPageLimit,
            markerPaged: true, as: ItemDTO.self
        ).map(\.item)
    }
}
