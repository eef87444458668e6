import GRDB

/// Why a version operation was refused.
enum VersionFailure: Error {
    /// No such version of this file.
    case notFound
    /// The current version cannot be deleted (only past ones).
    case isCurrent
}

extension ItemRecord {
    /// Makes `version` the file's current content (its time and author the file's modification); bumps
    /// sequence_id and etag.
    mutating func makeCurrent(_ version: FileVersionRecord) {
        versionID = version.id
        sha1 = version.sha1
        size = version.size
        sequenceID += 1
        etag = sequenceID
        modifiedAt = version.createdAt
        modifiedBy = version.modifiedBy
    }
}

extension Store {
    /// A page of a file's past versions (every version but the current one, trashed ones included), newest first.
    func pastVersions(of file: ItemRecord, offset: Int, limit: Int) async throws
        -> (versions: [FileVersionRecord], total: Int) {
        try await database.read { db in
            let past = FileVersionRecord.filter(sql: "file_id = ? AND id IS NOT ?", arguments: [file.id, file.versionID])
            return (try past.order(sql: "id DESC").limit(limit, offset: offset).fetchAll(db), try past.fetchCount(db))
        }
    }

    /// The version's 1-based number among its file's versions (the first upload is 1).
    func versionNumber(_ versionID: Int64, fileID: Int64) async throws -> Int {
        try await database.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM file_version WHERE file_id = ? AND id <= ?",
                             arguments: [fileID, versionID]) ?? 1
        }
    }

    /// Makes a copy of a past version the file's new current version (Box's promote), bumping the file's
    /// etag; the copy is what the answer shows.
    func promoteVersion(fileID: Int64, versionID: Int64, by userID: Int64) async throws -> FileVersionRecord {
        try await database.write { db in
            guard var file = try ItemRecord.fetchOne(db, key: fileID), file.itemStatus == "active",
                  let old = try FileVersionRecord.fetchOne(db, key: versionID), old.fileID == fileID, old.trashedAt == nil
            else { throw VersionFailure.notFound }
            try Self.checkQuota(db, userID: file.ownerID, size: old.size, replacingFileID: fileID)
            let now = Timestamp.now()
            var promoted = FileVersionRecord(id: nil, fileID: fileID, sha1: old.sha1, size: old.size, createdAt: now,
                                             modifiedBy: userID)
            try promoted.insert(db)
            file.makeCurrent(promoted)
            try file.update(db)
            try Self.recordEvent(db, type: "ITEM_MAKE_CURRENT_VERSION", itemID: fileID, userID: userID)
            return promoted
        }
    }

    /// Moves a past version to the trash (`trashed_at`/`trashed_by`); `ifMatch` is checked against the file.
    func trashVersion(fileID: Int64, versionID: Int64, ifMatch: String?, by userID: Int64) async throws {
        try await database.write { db in
            guard let file = try ItemRecord.fetchOne(db, key: fileID),
                  var version = try FileVersionRecord.fetchOne(db, key: versionID), version.fileID == fileID
            else { throw VersionFailure.notFound }
            if !WriteErrors.ifMatchHolds(ifMatch, etag: file.etag) { throw WriteFailure.preconditionFailed }
            guard file.versionID != versionID else { throw VersionFailure.isCurrent }
            guard version.trashedAt == nil else { throw VersionFailure.notFound }
            version.trashedAt = Timestamp.now()
            version.trashedBy = userID
            try version.update(db)
        }
    }

    /// Takes a trashed past version out of the trash (`restored_at`/`restored_by`).
    func restoreVersion(fileID: Int64, versionID: Int64, by userID: Int64) async throws -> FileVersionRecord {
        try await database.write { db in
            guard var version = try FileVersionRecord.fetchOne(db, key: versionID), version.fileID == fileID else {
                throw VersionFailure.notFound
            }
            if version.trashedAt != nil {
                version.trashedAt = nil
                version.trashedBy = nil
                version.restoredAt = Timestamp.now()
                version.restoredBy = userID
                try version.update(db)
            }
            return version
        }
    }
}
