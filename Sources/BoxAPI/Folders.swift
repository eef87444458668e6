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
        var items: [BoxItem] = []
        var marker: String?
        var offset: Int64?
        var seenMarkers: Set<String> = []
        while true {
            var query = [
                ("fields", BoxItem.fields), ("limit", String(Self.folderPageLimit)), ("usemarker", "true"),
            ]
            if let marker { query.append(("marker", marker)) }
            if let offset { query.append(("offset", String(offset))) }
            let request = BoxRequest.get(apiURL("folders", id, "items", query: query))
            let page = try await executeJSON(request, as: ItemPageDTO.self)
            items += page.entries.map(\.item)

            if page.isMarkerPaged {
                guard let next = page.nextMarker, !next.isEmpty else { return items }
                guard seenMarkers.insert(next).inserted else {
                    throw BoxAPIError(
                        kind: .decoding("the server repeated a paging marker"), status: 200,
                        request: request.logDescription)
                }
                marker = next
            } else {
                let nextOffset = (page.offset ?? offset ?? 0) + Int64(page.entries.count)
                guard !page.entries.isEmpty, let total = page.totalCount, nextOffset < total else { return items }
                offset = nextOffset
            }
        }
    }
}
