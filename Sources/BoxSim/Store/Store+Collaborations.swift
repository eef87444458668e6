import GRDB

/// A user's access to another user's item (a folder: with everything below it), with Box's role.
struct CollaborationRecord: Codable, FetchableRecord, MutablePersistableRecord, Sendable {
    static let databaseTableName = "collaboration"
    var id: Int64?
    var itemID: Int64
    var userID: Int64
    var role: String
    var createdBy: Int64
    var createdAt: Int64
    var modifiedAt: Int64

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    enum CodingKeys: String, CodingKey {
        case id, role
        case itemID = "item_id", userID = "user_id", createdBy = "created_by", createdAt = "created_at"
        case modifiedAt = "modified_at"
    }
}

/// Why a collaboration could not be added.
enum CollaborationFailure: Error {
    case alreadyCollaborator
}

extension Store {
    /// The role `userID` holds on `itemID` through a collaboration on it or the nearest folder above it.
    func collaborationRole(userID: Int64, itemID: Int64) async throws -> String? {
        try await database.read { db in try Self.collaborationRole(db, userID: userID, itemID: itemID) }
    }

    static func collaborationRole(_ db: Database, userID: Int64, itemID: Int64) throws -> String? {
        try String.fetchOne(db, sql: """
            WITH RECURSIVE up(id, depth) AS (
                SELECT ?, 0 UNION ALL SELECT item.parent_id, up.depth + 1 FROM item JOIN up ON item.id = up.id
                    WHERE item.parent_id IS NOT NULL AND up.depth < 10000)
            SELECT collaboration.role FROM collaboration JOIN up ON collaboration.item_id = up.id
            WHERE collaboration.user_id = ? ORDER BY up.depth LIMIT 1
            """, arguments: [itemID, userID])
    }

    /// The folders shared with the user.
    func collaboratedFolderIDs(userID: Int64) async throws -> [Int64] {
        try await database.read { db in
            try Int64.fetchAll(db, sql: """
                SELECT collaboration.item_id FROM collaboration JOIN item ON item.id = collaboration.item_id
                WHERE collaboration.user_id = ? AND item.type = 'folder' AND item.item_status = 'active'
                """, arguments: [userID])
        }
    }

    /// The items shared with the user that Box lists in their root folder ("All Files"): other users' active items
    /// the user collaborates on, less those under another of them (they are reached through it).
    func sharedRoots(userID: Int64) async throws -> [Int64] {
        try await database.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT item.id, item.parent_id FROM collaboration JOIN item ON item.id = collaboration.item_id
                WHERE collaboration.user_id = ? AND item.owner_id != ? AND item.item_status = 'active'
                ORDER BY item.id
                """, arguments: [userID, userID])
            guard !rows.isEmpty else { return [] }
            let shared = Set(rows.map { $0["id"] as Int64 })
            let parentOf = try db.cachedStatement(sql: "SELECT parent_id FROM item WHERE id = ?")
            return try rows.compactMap { row in
                var next: Int64? = row["parent_id"]
                var steps = 0
                while let id = next, steps < 10_000 {
                    if shared.contains(id) { return nil }
                    next = try Int64.fetchOne(parentOf, arguments: [id])
                    steps += 1
                }
                return row["id"] as Int64
            }
        }
    }

    /// Items a listing of `folderID` shows besides its children: in the viewer's own root, `sharedRoots`.
    func listedBesideChildren(of folderID: Int64, viewer: UserRecord) async throws -> [Int64] {
        guard folderID == viewer.rootFolderID, let userID = viewer.id else { return [] }
        return try await sharedRoots(userID: userID)
    }

    func collaboration(id: Int64) async throws -> CollaborationRecord? {
        try await database.read { db in try CollaborationRecord.fetchOne(db, key: id) }
    }

    func collaborations(itemID: Int64) async throws -> [CollaborationRecord] {
        try await database.read { db in
            try CollaborationRecord.filter(sql: "item_id = ?", arguments: [itemID]).order(sql: "id").fetchAll(db)
        }
    }

    /// Gives `userID` `role` on the item; records COLLAB_ADD_COLLABORATOR (seen by the owner and collaborators).
    func addCollaboration(itemID: Int64, userID: Int64, role: String, by creatorID: Int64) async throws
        -> CollaborationRecord {
        try await database.write { db in
            let existing = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM collaboration WHERE item_id = ? AND user_id = ?",
                                            arguments: [itemID, userID]) ?? 0
            guard existing == 0 else { throw CollaborationFailure.alreadyCollaborator }
            let now = Timestamp.now()
            var collaboration = CollaborationRecord(id: nil, itemID: itemID, userID: userID, role: role,
                                                    createdBy: creatorID, createdAt: now, modifiedAt: now)
            try collaboration.insert(db)
            try Self.recordEvent(db, type: "COLLAB_ADD_COLLABORATOR", itemID: itemID, userID: creatorID)
            return collaboration
        }
    }

    /// Gives a collaborator another role; records COLLAB_ROLE_CHANGE.
    func changeCollaborationRole(id: Int64, role: String, by userID: Int64) async throws -> CollaborationRecord? {
        try await database.write { db in
            guard var collaboration = try CollaborationRecord.fetchOne(db, key: id) else { return nil }
            collaboration.role = role
            collaboration.modifiedAt = Timestamp.now()
            try collaboration.update(db)
            try Self.recordEvent(db, type: "COLLAB_ROLE_CHANGE", itemID: collaboration.itemID, userID: userID)
            return collaboration
        }
    }

    /// Ends a collaboration; COLLAB_REMOVE_COLLABORATOR goes to everyone who could see the item, the removed
    /// user included.
    func removeCollaboration(id: Int64, by userID: Int64) async throws {
        try await database.write { db in
            guard let collaboration = try CollaborationRecord.fetchOne(db, key: id) else { return }
            try Self.recordEvent(db, type: "COLLAB_REMOVE_COLLABORATOR", itemID: collaboration.itemID, userID: userID)
            _ = try collaboration.delete(db)
        }
    }

    /// The users who see an item besides its owner: collaborators on it or on a folder above it.
    static func collaboratorIDs(_ db: Database, itemID: Int64) throws -> [Int64] {
        try Int64.fetchAll(db, sql: """
            WITH RECURSIVE up(id, depth) AS (
                SELECT ?, 0 UNION ALL SELECT item.parent_id, up.depth + 1 FROM item JOIN up ON item.id = up.id
                    WHERE item.parent_id IS NOT NULL AND up.depth < 10000)
            SELECT DISTINCT collaboration.user_id FROM collaboration JOIN up ON collaboration.item_id = up.id
            """, arguments: [itemID])
    }
}
