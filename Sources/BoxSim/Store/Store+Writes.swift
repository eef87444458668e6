import GRDB

/// Outcomes of write operations that the routes turn into Box errors.
enum WriteFailure: Error {
    /// An active item with the same (case-insensitive) name exists in the target folder.
    case nameInUse(ItemRecord)
    case folderNotEmpty
    case cyclicalMove
    case parentNotFound
    /// The owner's `space_amount` would be exceeded.
    case storageLimitExceeded
    /// The file is larger than the user's `max_upload_size`.
    case fileSizeLimitExceeded
    /// `If-Match` named another etag.
    case preconditionFailed
}

extension Store {
    static func conflict(_ db: Database, parentID: Int64, name: String, except: Int64?) throws -> ItemRecord? {
        try ItemRecord.filter(sql: "parent_id = ? AND name_key = ? AND item_status = 'active' AND id IS NOT ?",
                              arguments: [parentID, ItemRecord.nameKey(name), except]).fetchOne(db)
    }

    /// A folder owned by `ownerID` (the parent's owner), made by `userID` (default: the owner).
    func createFolder(name: String, parentID: Int64, ownerID: Int64, by userID: Int64? = nil) async throws
        -> ItemRecord {
        try await database.write { db in
            if let existing = try Self.conflict(db, parentID: parentID, name: name, except: nil) {
                throw WriteFailure.nameInUse(existing)
            }
            var folder = ItemRecord.newFolder(name: name, parentID: parentID, ownerID: ownerID, time: Timestamp.now())
            folder.createdBy = userID ?? ownerID
            folder.modifiedBy = userID ?? ownerID
            try folder.insert(db)
            try Self.recordEvent(db, type: "ITEM_CREATE", itemID: folder.id!, userID: userID ?? ownerID)
            return folder
        }
    }

    /// Renames, moves and/or re-describes an item; bumps its sequence_id and etag.
    func updateItem(id: Int64, name: String?, parentID: Int64?, description: String?, by userID: Int64) async throws
        -> ItemRecord {
        try await database.write { db in
            guard var item = try ItemRecord.fetchOne(db, key: id) else { throw WriteFailure.parentNotFound }
            let targetParent = parentID ?? item.parentID!
            if let parentID, parentID != item.parentID {
                guard let parent = try ItemRecord.fetchOne(db, key: parentID), parent.isFolder,
                      parent.itemStatus == "active", parent.ownerID == item.ownerID
                else { throw WriteFailure.parentNotFound }
                var cursor: Int64? = parentID
                while let current = cursor {
                    if current == id { throw WriteFailure.cyclicalMove }
                    cursor = try Int64.fetchOne(db, sql: "SELECT parent_id FROM item WHERE id = ?", arguments: [current])
                }
            }
            let newName = name ?? item.name
            let previousName = item.name
            let previousParent = item.parentID
            if let existing = try Self.conflict(db, parentID: targetParent, name: newName, except: id) {
                throw WriteFailure.nameInUse(existing)
            }
            item.name = newName
            item.nameKey = ItemRecord.nameKey(newName)
            item.parentID = targetParent
            if let description { item.description = description }
            item.sequenceID += 1
            item.etag = item.sequenceID
            item.modifiedAt = Timestamp.now()
            item.modifiedBy = userID
            let moved = targetParent != previousParent
            // Collaborators who saw the item where it was hear of its move out of their view too.
            let sawIt = try moved ? Self.collaboratorIDs(db, itemID: id) : []
            try item.update(db)
            if moved { try Self.recordEvent(db, type: "ITEM_MOVE", itemID: id, userID: userID, alsoTo: sawIt) }
            if newName != previousName { try Self.recordEvent(db, type: "ITEM_RENAME", itemID: id, userID: userID) }
            return item
        }
    }

    /// Moves an item (and, for a folder, everything under it) to the trash.
    func trash(id: Int64, recursive: Bool, by userID: Int64? = nil) async throws {
        try await database.write { db in
            let now = Timestamp.now()
            let children = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item WHERE parent_id = ? AND item_status = 'active'",
                                            arguments: [id]) ?? 0
            if children > 0 && !recursive { throw WriteFailure.folderNotEmpty }
            try db.execute(sql: """
                WITH RECURSIVE tree(id) AS (
                    SELECT ? UNION ALL SELECT item.id FROM item JOIN tree ON item.parent_id = tree.id
                        WHERE item.item_status = 'active')
                UPDATE item SET item_status = 'trashed', trashed_at = ?, sequence_id = sequence_id + 1,
                    etag = sequence_id + 1, trash_root = ? WHERE id IN tree
                """, arguments: [id, now, id])
            if let owner = try Int64.fetchOne(db, sql: "SELECT owner_id FROM item WHERE id = ?", arguments: [id]) {
                try Self.recordEvent(db, type: "ITEM_TRASH", itemID: id, userID: userID ?? owner)
            }
        }
    }
}
