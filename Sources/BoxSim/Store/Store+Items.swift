import GRDB

extension ItemRecord {
    static func newFolder(name: String, parentID: Int64?, ownerID: Int64, time: Int64) -> ItemRecord {
        ItemRecord(id: nil, type: "folder", typeRank: 0, name: name, nameKey: nameKey(name), parentID: parentID,
                   ownerID: ownerID, isRoot: false, sequenceID: 0, etag: 0, description: "", createdAt: time,
                   modifiedAt: time, contentCreatedAt: time, contentModifiedAt: time, createdBy: ownerID,
                   modifiedBy: ownerID, versionID: nil, size: 0, sha1: nil, itemStatus: "active", trashedAt: nil)
    }

    static func newFile(name: String, parentID: Int64, ownerID: Int64, sha1: String, size: Int64,
                        time: Int64, contentCreatedAt: Int64, contentModifiedAt: Int64) -> ItemRecord {
        ItemRecord(id: nil, type: "file", typeRank: 1, name: name, nameKey: nameKey(name), parentID: parentID,
                   ownerID: ownerID, isRoot: false, sequenceID: 0, etag: 0, description: "", createdAt: time,
                   modifiedAt: time, contentCreatedAt: contentCreatedAt, contentModifiedAt: contentModifiedAt,
                   createdBy: ownerID, modifiedBy: ownerID, versionID: nil, size: size, sha1: sha1,
                   itemStatus: "active", trashedAt: nil)
    }
}

/// Where a marker-paged listing continues: after this (type_rank, name_key, id).
struct ListingCursor: Sendable, Equatable {
    var typeRank: Int
    var nameKey: String
    var id: Int64
}

extension Store {
    func item(id: Int64) async throws -> ItemRecord? {
        try await database.read { db in try ItemRecord.fetchOne(db, key: id) }
    }

    func version(id: Int64) async throws -> FileVersionRecord? {
        try await database.read { db in try FileVersionRecord.fetchOne(db, key: id) }
    }

    /// Ancestors of an item from its root folder down to its parent.
    func ancestors(of item: ItemRecord) async throws -> [ItemRecord] {
        try await database.read { db in
            var chain: [ItemRecord] = []
            var next = item.parentID
            while let id = next, let parent = try ItemRecord.fetchOne(db, key: id), chain.count < 10_000 {
                chain.append(parent)
                next = parent.parentID
            }
            return chain.reversed()
        }
    }

    /// Total size of the active files under a folder, at any depth.
    func folderSize(id: Int64) async throws -> Int64 {
        try await database.read { db in
            try Int64.fetchOne(db, sql: """
                WITH RECURSIVE tree(id) AS (
                    SELECT id FROM item WHERE parent_id = ? AND item_status = 'active'
                    UNION ALL SELECT item.id FROM item JOIN tree ON item.parent_id = tree.id
                        WHERE item.item_status = 'active')
                SELECT COALESCE(SUM(size), 0) FROM item WHERE id IN tree AND type = 'file'
                """, arguments: [id]) ?? 0
        }
    }

    /// What a listing of `folderID` holds: its active children, and the active items `besides` (what
    /// `listedBesideChildren` adds), as an SQL condition on `item`.
    private static func listed(in folderID: Int64, besides: [Int64]) -> (sql: String, arguments: StatementArguments) {
        guard !besides.isEmpty else { return ("parent_id = ? AND item_status = 'active'", [folderID]) }
        return ("(parent_id = ? OR id IN (\(placeholders(besides.count)))) AND item_status = 'active'",
                StatementArguments([folderID] + besides))
    }

    /// A page of a folder's active children (and the items `besides` them): folders first, then files, each group
    /// in `order`.
    func children(of folderID: Int64, besides: [Int64] = [], offset: Int, limit: Int,
                  order: ListingOrder = .standard) async throws -> (items: [ItemRecord], total: Int) {
        try await database.read { db in
            let condition = Self.listed(in: folderID, besides: besides)
            let base = ItemRecord.filter(sql: condition.sql, arguments: condition.arguments)
            let total = try base.fetchCount(db)
            if let keys = order.sqlKeys {
                return (try base.order(sql: "type_rank, " + keys).limit(limit, offset: offset).fetchAll(db), total)
            }
            let sizes = try Self.folderSizes(db, roots: "type = 'folder' AND " + condition.sql,
                                             arguments: condition.arguments)
            let sorted = try base.fetchAll(db).sorted { left, right in
                if left.typeRank != right.typeRank { return left.typeRank < right.typeRank }
                let leftKey = (left.isFolder ? sizes[left.id!] ?? 0 : left.size, left.nameKey, left.id!)
                let rightKey = (right.isFolder ? sizes[right.id!] ?? 0 : right.size, right.nameKey, right.id!)
                return order.descending ? leftKey > rightKey : leftKey < rightKey
            }
            return (Array(sorted.dropFirst(offset).prefix(limit)), total)
        }
    }

    /// Total size of the active files under each folder that `roots` (an SQL condition on `item`) selects.
    static func folderSizes(_ db: Database, roots: String, arguments: StatementArguments) throws -> [Int64: Int64] {
        // Each row of the walk carries its own size (0 for folders), so the sum needs no second lookup per row.
        let rows = try Row.fetchAll(db, sql: """
            WITH RECURSIVE tree(top, id, size) AS (
                SELECT id, id, 0 FROM item WHERE \(roots)
                UNION ALL SELECT tree.top, item.id, CASE WHEN item.type = 'file' THEN item.size ELSE 0 END
                    FROM item JOIN tree ON item.parent_id = tree.id WHERE item.item_status = 'active')
            SELECT top, SUM(size) AS size FROM tree GROUP BY top
            """, arguments: arguments)
        return Dictionary(rows.map { ($0["top"] as Int64, $0["size"] as Int64) }, uniquingKeysWith: { first, _ in first })
    }

    /// The children (and the items `besides` them) after `cursor` (or from the start), one more than `limit` to tell
    /// whether more follow.
    func children(of folderID: Int64, besides: [Int64] = [], after cursor: ListingCursor?, limit: Int) async throws
        -> [ItemRecord] {
        try await database.read { db in
            let condition = Self.listed(in: folderID, besides: besides)
            var request = ItemRecord.filter(sql: condition.sql, arguments: condition.arguments)
            if let cursor {
                request = request.filter(sql: "(type_rank, name_key, id) > (?, ?, ?)",
                                         arguments: [cursor.typeRank, cursor.nameKey, cursor.id])
            }
            return try request.order(sql: "type_rank, name_key, id").limit(limit + 1).fetchAll(db)
        }
    }

    /// The number of active files directly in a folder (`file_count`).
    func fileCount(inFolder id: Int64) async throws -> Int {
        try await database.read { db in
            try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM item WHERE parent_id = ? AND type = 'file' AND item_status = 'active'
                """, arguments: [id]) ?? 0
        }
    }

    /// The active child of `parentID` whose name matches case-insensitively.
    func child(of parentID: Int64, named name: String) async throws -> ItemRecord? {
        try await database.read { db in
            try ItemRecord.filter(sql: "parent_id = ? AND name_key = ? AND item_status = 'active'",
                                  arguments: [parentID, ItemRecord.nameKey(name)]).fetchOne(db)
        }
    }
}

extension Store {
    /// Whether `itemID` is `ancestorID` or lies under it.
    func isDescendant(_ itemID: Int64, of ancestorID: Int64) async throws -> Bool {
        try await database.read { db in
            var next: Int64? = itemID
            var steps = 0
            while let id = next, steps < 10_000 {
                if id == ancestorID { return true }
                next = try Int64.fetchOne(db, sql: "SELECT parent_id FROM item WHERE id = ?", arguments: [id])
                steps += 1
            }
            return false
        }
    }
}
