import GRDB

/// A file's lock: only its creator may change the file (and, with `isDownloadPrevented`, download it).
struct LockRecord: Codable, FetchableRecord, MutablePersistableRecord, Sendable {
    static let databaseTableName = "item_lock"
    var id: Int64?
    var itemID: Int64
    var createdBy: Int64
    var createdAt: Int64
    var expiresAt: Int64?
    var isDownloadPrevented: Bool

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    enum CodingKeys: String, CodingKey {
        case id
        case itemID = "item_id", createdBy = "created_by", createdAt = "created_at", expiresAt = "expires_at"
        case isDownloadPrevented = "is_download_prevented"
    }
}

extension Store {
    /// The file's lock unless it has expired.
    func lock(itemID: Int64, now: Int64 = Timestamp.now()) async throws -> LockRecord? {
        try await database.read { db in
            try LockRecord.filter(sql: "item_id = ? AND (expires_at IS NULL OR expires_at > ?)", arguments: [itemID, now])
                .fetchOne(db)
        }
    }

    /// Locks the file for `userID` (replacing an earlier lock of theirs or an expired one); records LOCK_CREATE.
    func setLock(itemID: Int64, by userID: Int64, expiresAt: Int64?, isDownloadPrevented: Bool) async throws -> LockRecord {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM item_lock WHERE item_id = ?", arguments: [itemID])
            var lock = LockRecord(id: nil, itemID: itemID, createdBy: userID, createdAt: Timestamp.now(),
                                  expiresAt: expiresAt, isDownloadPrevented: isDownloadPrevented)
            try lock.insert(db)
            try Self.recordEvent(db, type: "LOCK_CREATE", itemID: itemID, userID: userID)
            return lock
        }
    }

    /// Removes the file's lock; records LOCK_DESTROY when there was one.
    func removeLock(itemID: Int64, by userID: Int64) async throws {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM item_lock WHERE item_id = ?", arguments: [itemID])
            if db.changesCount > 0 { try Self.recordEvent(db, type: "LOCK_DESTROY", itemID: itemID, userID: userID) }
        }
    }
}
