extension BoxClient {
    /// Every entry of a paged Box collection: marker paging when the server answers with `next_marker`
    /// (`usemarker=true` is sent for `markerPaged` collections), else offset paging up to `total_count`.
    /// `query` is sent with every page; `limit` is the page size; at most `maxEntries` are collected.
    ///
    /// A repeated marker is an error rather than an endless loop; an empty page ends offset paging (Box's
    /// `total_count` may count entries it will not show, e.g. the trash of folders no longer shared).
    func allPages<Entry: Decodable>(
        _ segments: [String], query: [(String, String)], limit: Int, markerPaged: Bool,
        maxEntries: Int = .max, as entry: Entry.Type
    ) async throws -> [Entry] {
        var entries: [Entry] = []
        var marker: String?
        var offset: Int64?
        var seenMarkers: Set<String> = []
        while true {
            var pageQuery = query + [("limit", String(limit))]
            if markerPaged { pageQuery.append(("usemarker", "true")) }
            if let marker { pageQuery.append(("marker", marker)) }
            if let offset { pageQuery.append(("offset", String(offset))) }
            let request = BoxRequest.get(BoxURL.make(endpoints.apiBase, ["2.0"] + segments, query: pageQuery))
            let page = try await executeJSON(request, as: PageDTO<Entry>.self)
            entries += page.entries
            if entries.count >= maxEntries { return Array(entries.prefix(maxEntries)) }

            if page.isMarkerPaged {
                guard let next = page.nextMarker, !next.isEmpty else { return entries }
                guard seenMarkers.insert(next).inserted else {
                    throw BoxAPIError(
                        kind: .decoding("the server repeated a paging marker"), status: 200,
                        request: request.logDescription)
                }
                marker = next
            } else {
                let nextOffset = (page.offset ?? offset ?? 0) + Int64(page.entries.count)
                guard !page.entries.isEmpty, let total = page.totalCount, nextOffset < total else { return entries }
                offset = nextOffset
            }
        }
    }
}
