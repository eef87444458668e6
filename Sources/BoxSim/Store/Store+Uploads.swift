import GRDB

/// New content for a file: a blob already installed in the blob store (where in a pack, when packed: recorded
/// with the version), plus the client's timestamps.
struct FileContent: Sendable {
    var sha1: String
    var size: Int64
    var packed: PackedBlob?
    var contentCreatedAt: Int64?
    var contentModifiedAt: Int64?
}

extension Store {
    /// The checks Box runs before accepting an upload (the preflight, session creation, and again at commit):
    /// a case-insensitive name conflict, the user's `max_upload_size`, and the owner's quota.
    func checkUpload(name: String, parentID: Int64, userID: Int64, size: Int64?, replacingFileID: Int64?) async throws {
        try await database.read { db in
            if let existing = try Self.conflict(db, parentID: parentID, name: name, except: replacingFileID) {
                throw WriteFailure.nameInUse(existing)
            }
            if let size { try Self.checkQuota(db, userID: userID, size: size, replacingFileID: replacingFileID) }
        }
    }

    static func checkQuota(_ db: Database, userID: Int64, size: Int64, replacingFileID: Int64?) throws {
        guard let user = try UserRecord.fetchOne(db, key: userID) else { return }
        if size > user.maxUploadSize { throw WriteFailure.fileSizeLimitExceeded }
        let used = try Int64.fetchOne(db, sql: """
            SELECT COALESCE(SUM(size), 0) FROM item WHERE owner_id = ? AND type = 'file' AND item_status = 'active'
            """, arguments: [userID]) ?? 0
        let replaced = try replacingFileID.flatMap { try ItemRecord.fetchOne(db, key: $0)?.size } ?? 0
        if used - replaced + size > user.spaceAmount { throw WriteFailure.storageLimitExceeded }
    }

    /// Creates a file with its first version (the upload of a new file).
    func createFile(name: String, parentID: Int64, ownerID: Int64, content: FileContent, by userID: Int64) async throws
        -> ItemRecord {
        try await database.write { db in
            if let existing = try Self.conflict(db, parentID: parentID, name: name, except: nil) {
                throw WriteFailure.nameInUse(existing)
            }
            try Self.checkQuota(db, userID: ownerID, size: content.size, replacingFileID: nil)
            let now = Timestamp.now()
            var file = ItemRecord.newFile(name: name, parentID: parentID, ownerID: ownerID, sha1: content.sha1,
                                          size: content.size, time: now,
                                          contentCreatedAt: content.contentCreatedAt ?? content.contentModifiedAt ?? now,
                                          contentModifiedAt: content.contentModifiedAt ?? now)
            file.createdBy = userID
            file.modifiedBy = userID
            try file.insert(db)
            var version = FileVersionRecord(id: nil, fileID: file.id!, sha1: content.sha1, size: content.size,
                                            createdAt: now, modifiedBy: userID)
            try version.insert(db)
            try Self.recordPackedBlob(db, sha1: content.sha1, at: content.packed)
            file.versionID = version.id
            try file.update(db)
            try Self.recordEvent(db, type: "ITEM_UPLOAD", itemID: file.id!, userID: userID)
            return file
        }
    }

    /// Adds a new current version to a file (optionally renaming it); bumps sequence_id and etag.
    /// `ifMatch` is re-checked inside the transaction so concurrent writers cannot both pass it.
    func addVersion(fileID: Int64, newName: String?, content: FileContent, ifMatch: String?, by userID: Int64)
        async throws -> ItemRecord {
        try await database.write { db in
            guard var file = try ItemRecord.fetchOne(db, key: fileID), file.itemStatus == "active" else {
                throw WriteFailure.parentNotFound
            }
            if !WriteErrors.ifMatchHolds(ifMatch, etag: file.etag) { throw WriteFailure.preconditionFailed }
            if let newName, let parentID = file.parentID,
               let existing = try Self.conflict(db, parentID: parentID, name: newName, except: fileID) {
                throw WriteFailure.nameInUse(existing)
            }
            try Self.checkQuota(db, userID: file.ownerID, size: content.size, replacingFileID: fileID)
            let now = Timestamp.now()
            var version = FileVersionRecord(id: nil, fileID: fileID, sha1: content.sha1, size: content.size,
                                            createdAt: now, modifiedBy: userID)
            try version.insert(db)
            try Self.recordPackedBlob(db, sha1: content.sha1, at: content.packed)
            if let newName {
                file.name = newName
                file.nameKey = ItemRecord.nameKey(newName)
            }
            file.makeCurrent(version)
            file.contentModifiedAt = content.contentModifiedAt ?? now
            try file.update(db)
            try Self.recordEvent(db, type: "ITEM_UPLOAD", itemID: fileID, userID: userID)
            return file
        }
    }

    /// Appends an event made by `userID` (inside the write that caused it) to the stream of every user who sees
    /// the item: the actor, the owner and the collaborators on it or a folder above it (one row each, one
    /// `event_id`), and to `alsoTo` (who saw it before a move). Downloads and previews go to the actor's stream only.
    /// An event fault in force (`eventFate`) may drop the event or delay it.
    static func recordEvent(_ db: Database, type: String, itemID: Int64?, userID: Int64, alsoTo: [Int64] = []) throws {
        guard case .recorded(let visibleAt) = try eventFate(db) else { return }
        var users = [userID] + alsoTo
        if let itemID, !["ITEM_DOWNLOAD", "ITEM_PREVIEW"].contains(type) {
            users += try Int64.fetchAll(db, sql: "SELECT owner_id FROM item WHERE id = ?", arguments: [itemID])
            if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM collaboration)") == true {
                users += try collaboratorIDs(db, itemID: itemID)
            }
        }
        let eventID = UUIDText.random()
        let now = Timestamp.now()
        var seen = Set<Int64>()
        for user in users where seen.insert(user).inserted {
            try db.execute(sql: """
                INSERT INTO event(event_id, user_id, event_type, item_id, created_at, actor_id, visible_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """, arguments: [eventID, user, type, itemID, now, userID, visibleAt])
        }
    }
}

/// Random lower-case UUID text (Box's event ids look like this).
enum UUIDText {
    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        let hex = Array("0123456789abcdef")
        let digits = String((0..<32).map { _ in hex[Int(generator.next() % 16)] })
        let parts = [digits.prefix(8), digits.dropFirst(8).prefix(4), digits.dropFirst(12).prefix(4),
                     digits.dropFirst(16).prefix(4), digits.dropFirst(20)]
        return parts.joined(separator: "-")
    }
}
