import GRDB

extension Store {
    /// Copies a file (sharing its current content blob) or a folder with everything active under it into
    /// `parentID`, under `name` (default: the same name). Checks the name, cycles and the owner's quota.
    func copyItem(id: Int64, parentID: Int64, name: String?, by userID: Int64) async throws -> ItemRecord {
        try await database.write { db in
            guard let source = try ItemRecord.fetchOne(db, key: id), source.itemStatus == "active" else {
                throw WriteFailure.parentNotFound
            }
            guard let parent = try ItemRecord.fetchOne(db, key: parentID), parent.isFolder,
                  parent.itemStatus == "active"
            else { throw WriteFailure.parentNotFound }
            if source.isFolder {
                var cursor: Int64? = parentID
                while let current = cursor {
                    if current == id { throw WriteFailure.cyclicalMove }
                    cursor = try Int64.fetchOne(db, sql: "SELECT parent_id FROM item WHERE id = ?", arguments: [current])
                }
            }
            let newName = name ?? source.name
            if let existing = try Self.conflict(db, parentID: parentID, name: newName, except: nil) {
                throw WriteFailure.nameInUse(existing)
            }
            let size = try source.isFolder ? Self.subtreeSize(db, folderID: id) : source.size
            try Self.checkQuota(db, userID: parent.ownerID, size: size, replacingFileID: nil)
            let copy = try Self.copy(db, source, into: parentID, name: newName, ownerID: parent.ownerID, by: userID)
            try Self.recordEvent(db, type: "ITEM_COPY", itemID: copy.id!, userID: userID)
            return copy
        }
    }

    private static func copy(_ db: Database, _ source: ItemRecord, into parentID: Int64, name: String, ownerID: Int64,
                             by userID: Int64) throws -> ItemRecord {
        let now = Timestamp.now()
        var copy = source
        copy.id = nil
        copy.name = name
        copy.nameKey = ItemRecord.nameKey(name)
        copy.parentID = parentID
        copy.ownerID = ownerID
        copy.isRoot = false
        copy.sequenceID = 0
        copy.etag = 0
        copy.createdAt = now
        copy.modifiedAt = now
        copy.createdBy = userID
        copy.modifiedBy = userID
        try copy.insert(db)
        if let sha1 = source.sha1, !source.isFolder {
            var version = FileVersionRecord(id: nil, fileID: copy.id!, sha1: sha1, size: source.size, createdAt: now,
                                            modifiedBy: userID)
            try version.insert(db)
            copy.versionID = version.id
            try copy.update(db)
        } else {
            let children = try ItemRecord.filter(sql: "parent_id = ? AND item_status = 'active'", arguments: [source.id])
                .fetchAll(db)
            for child in children {
                _ = try Self.copy(db, child, into: copy.id!, name: child.name, ownerID: ownerID, by: userID)
            }
        }
        return copy
    }

    private static func subtreeSize(_ db: Database, folderID: Int64) throws -> Int64 {
        try Int64.fetchOne(db, sql: """
            WITH RECURSIVE tree(id) AS (
                SELECT id FROM item WHERE parent_id = ? AND item_status = 'active'
                UNION ALL SELECT item.id FROM item JOIN tree ON item.parent_id = tree.id WHERE item.item_status = 'active')
            SELECT COALESCE(SUM(size), 0) FROM item WHERE id IN tree AND type = 'file'
            """, arguments: [folderID]) ?? 0
    }
}
