import GRDB

extension Store {
    /// Items in the trash because they were deleted themselves (`trash_root = id`), not with a folder above them:
    /// the ones the trash lists, shows and restores.
    static let trashRootCondition = "owner_id = ? AND item_status = 'trashed' AND trash_root = id"

    /// The item `id` of `ownerID` if it was deleted directly and is still in the trash.
    func trashedItem(id: Int64, ownerID: Int64) async throws -> ItemRecord? {
        try await database.read { db in
            try ItemRecord.filter(sql: "id = ? AND " + Self.trashRootCondition, arguments: [id, ownerID]).fetchOne(db)
        }
    }

    /// A page of the user's trash: folders first, then files, each group in `order` (`size` by the item's own
    /// size column: a trashed folder's size is not recomputed).
    func trashItems(ownerID: Int64, offset: Int, limit: Int, order: ListingOrder) async throws
        -> (items: [ItemRecord], total: Int) {
        try await database.read { db in
            let base = ItemRecord.filter(sql: Self.trashRootCondition, arguments: [ownerID])
            let direction = order.descending ? " DESC" : ""
            let keys = order.sqlKeys ?? "size\(direction), name_key\(direction), id\(direction)"
            return (try base.order(sql: "type_rank, " + keys).limit(limit, offset: offset).fetchAll(db),
                    try base.fetchCount(db))
        }
    }

    /// Takes an item out of the trash with what was deleted with it. It goes back to its parent when that folder
    /// is active, else into `fallbackParentID` (the request's `parent.id`), else into the owner's root; under
    /// `name` when given. A name taken there fails with `nameInUse`. Records ITEM_UNDELETE_VIA_TRASH.
    func restore(id: Int64, name: String?, fallbackParentID: Int64?, by userID: Int64) async throws -> ItemRecord {
        try await database.write { db in
            guard var item = try ItemRecord.fetchOne(db, key: id), item.itemStatus == "trashed" else {
                throw WriteFailure.parentNotFound
            }
            let ownerID = item.ownerID
            func activeFolder(_ folderID: Int64?) throws -> Int64? {
                guard let folderID, let folder = try ItemRecord.fetchOne(db, key: folderID), folder.isFolder,
                      folder.itemStatus == "active", folder.ownerID == ownerID else { return nil }
                return folderID
            }
            let root = try UserRecord.fetchOne(db, key: ownerID)?.rootFolderID
            guard let parentID = try activeFolder(item.parentID) ?? activeFolder(fallbackParentID) ?? root else {
                throw WriteFailure.parentNotFound
            }
            let newName = name ?? item.name
            if let existing = try Self.conflict(db, parentID: parentID, name: newName, except: id) {
                throw WriteFailure.nameInUse(existing)
            }
            // Named and placed while still trashed: the unique name index covers active items only.
            item.name = newName
            item.nameKey = ItemRecord.nameKey(newName)
            item.parentID = parentID
            item.sequenceID += 1
            item.etag = item.sequenceID
            item.modifiedBy = userID
            try item.update(db)
            try db.execute(sql: """
                UPDATE item SET item_status = 'active', trashed_at = NULL, trash_root = NULL
                WHERE trash_root = ? AND item_status = 'trashed'
                """, arguments: [id])
            item = try ItemRecord.fetchOne(db, key: id) ?? item
            try Self.recordEvent(db, type: "ITEM_UNDELETE_VIA_TRASH", itemID: id, userID: userID)
            return item
        }
    }

    /// Deletes a trashed item for good, with what went to the trash with it (status `deleted`: every call
    /// then answers 404).
    func purge(id: Int64) async throws {
        try await database.write { db in
            try db.execute(sql: """
                UPDATE item SET item_status = 'deleted', trash_root = NULL WHERE trash_root = ? AND item_status = 'trashed'
                """, arguments: [id])
        }
    }
}
