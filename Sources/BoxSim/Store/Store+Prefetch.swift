import GRDB

extension Store {
    /// Reads, in one transaction, what `names` (the fields to render) need for `items`.
    func prefetch(for items: [ItemRecord], names: Set<String>) async throws -> PagePrefetch {
        guard !items.isEmpty else { return PagePrefetch() }
        return try await database.read { db in
            var known = PagePrefetch()
            let ids = items.compactMap(\.id)
            let folderIDs = items.filter(\.isFolder).compactMap(\.id)
            if !names.isDisjoint(with: ["parent", "path_collection"]) {
                let lookup = try db.cachedStatement(sql: "SELECT * FROM item WHERE id = ?")
                // Parents (and with path_collection their ancestors); a listing's entries share one parent.
                var pending = Set(items.compactMap(\.parentID))
                while let id = pending.popFirst() {
                    guard known.items[id] == nil, known.items.count < 10_000,
                          let parent = try ItemRecord.fetchOne(lookup, arguments: [id]) else { continue }
                    known.items[id] = parent
                    if names.contains("path_collection"), let next = parent.parentID { pending.insert(next) }
                }
            }
            if !names.isDisjoint(with: ["created_by", "modified_by", "owned_by"]) {
                let userIDs = Set(items.flatMap { [$0.createdBy, $0.modifiedBy, $0.ownerID] })
                for user in try UserRecord.fetchAll(db, keys: userIDs) { known.users[user.id!] = user }
            }
            if names.contains("size") {
                known.folderSizes = folderIDs.isEmpty ? [:]
                    : try Self.folderSizes(db, roots: "id IN (\(Self.placeholders(folderIDs.count)))",
                                           arguments: StatementArguments(folderIDs))
            }
            if !names.isDisjoint(with: ["shared_link", "is_accessible_via_shared_link"]) {
                let now = Timestamp.now()
                known.sharedLinks = Dictionary(
                    try SharedLinkRecord.fetchAll(db, keys: ids).filter { $0.isActive(now: now) }.map { ($0.itemID, $0) },
                    uniquingKeysWith: { first, _ in first })
            }
            if names.contains("file_count") {
                known.fileCounts = [:]
                if !folderIDs.isEmpty {
                    let rows = try Row.fetchAll(db, sql: """
                        SELECT parent_id, COUNT(*) AS count FROM item
                        WHERE parent_id IN (\(Self.placeholders(folderIDs.count))) AND type = 'file'
                          AND item_status = 'active' GROUP BY parent_id
                        """, arguments: StatementArguments(folderIDs))
                    for row in rows { known.fileCounts?[row["parent_id"]] = row["count"] }
                }
            }
            return known
        }
    }

    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}
