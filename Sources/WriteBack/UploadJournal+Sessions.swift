import BoxAPI
import Foundation
import GRDB

extension UploadJournal {
    /// Remembers the chunked session being filled with the content of `generation` (`fileSize` bytes),
    /// dropping parts of any earlier session.
    public func saveSession(id: Int64, _ session: UploadSession, generation: Int64, fileSize: Int64) throws {
        let endpoints = [session.uploadPartURL, session.commitURL, session.abortURL, session.listPartsURL,
                         session.statusURL].joined(separator: "\n")
        try write { db in
            try db.execute(sql: "DELETE FROM upload_part WHERE upload_id = ?", arguments: [id])
            try db.execute(
                sql: """
                    UPDATE upload SET session_id = ?, session_part_size = ?, session_total_parts = ?,
                        session_expires_at = ?, session_endpoints = ?, session_generation = ?, session_file_size = ?,
                        updated_at = ? WHERE id = ?
                    """,
                arguments: [session.id, session.partSize, session.totalParts, session.expiresAt?.timeIntervalSince1970,
                            endpoints, generation, fileSize, Date().timeIntervalSince1970, id])
        }
    }

    /// Forgets the session (expired, aborted, or its content changed) and its parts.
    public func clearSession(id: Int64) throws {
        try write { db in
            try db.execute(sql: "DELETE FROM upload_part WHERE upload_id = ?", arguments: [id])
            try db.execute(
                sql: """
                    UPDATE upload SET session_id = NULL, session_part_size = NULL, session_total_parts = NULL,
                        session_expires_at = NULL, session_endpoints = NULL, session_generation = NULL,
                        session_file_size = NULL, updated_at = ? WHERE id = ?
                    """,
                arguments: [Date().timeIntervalSince1970, id])
        }
    }

    /// Records a part Box acknowledged for `sessionID` (ignored if the entry has moved on to another session).
    public func addPart(id: Int64, sessionID: String, _ part: UploadPart) throws {
        try write { db in
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO upload_part (upload_id, session_id, offset, part_id, size, sha1)
                    SELECT id, session_id, ?, ?, ?, ? FROM upload WHERE id = ? AND session_id = ?
                    """,
                arguments: [part.offset, part.partID, part.size, part.sha1, id, sessionID])
        }
    }

    static func entry(_ row: Row, db: Database) throws -> UploadEntry {
        let id: Int64 = row["id"]
        let parentID: String = row["parent_id"]
        let name: String = row["name"]
        let target: UploadTarget
        if let fileID: String = row["file_id"] {
            target = .newVersion(
                fileID: fileID, parentID: parentID, name: name, baseETag: row["base_etag"], baseSHA1: row["base_sha1"])
        } else {
            target = .newFile(parentID: parentID, name: name)
        }
        var session: UploadSession?
        var parts: [UploadPart] = []
        if let sessionID: String = row["session_id"], let endpointText: String = row["session_endpoints"] {
            let urls = endpointText.components(separatedBy: "\n")
            if urls.count == 5 {
                session = UploadSession(
                    id: sessionID, partSize: row["session_part_size"], totalParts: row["session_total_parts"],
                    expiresAt: (row["session_expires_at"] as Double?).map { Date(timeIntervalSince1970: $0) },
                    uploadPartURL: urls[0], commitURL: urls[1], abortURL: urls[2], listPartsURL: urls[3],
                    statusURL: urls[4])
                parts = try Row.fetchAll(
                    db, sql: "SELECT * FROM upload_part WHERE upload_id = ? AND session_id = ? ORDER BY offset",
                    arguments: [id, sessionID]
                ).map { UploadPart(partID: $0["part_id"], offset: $0["offset"], size: $0["size"], sha1: $0["sha1"]) }
            }
        }
        return UploadEntry(
            id: id, stagingPath: row["staging_path"], target: target,
            contentModifiedAt: (row["content_modified_at"] as Double?).map { Date(timeIntervalSince1970: $0) },
            generation: row["generation"], session: session, sessionGeneration: row["session_generation"],
            sessionFileSize: row["session_file_size"], parts: parts, attempts: row["attempts"],
            lastError: row["last_error"], createdAt: Date(timeIntervalSince1970: row["created_at"]))
    }
}

extension UploadJournal {
    /// Remembers, before sending it, that content with this SHA-1 goes up for the entry, and where: `place` for a
    /// new file, `versionOf` for a new version of a Box file. One durable write for all.
    public func noteSent(id: Int64, sha1: String, place: SentPlace?, versionOf fileID: String? = nil) throws {
        try write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO sent_digest (upload_id, sha1) VALUES (?, ?)", arguments: [id, sha1])
            if let place {
                try db.execute(sql: "INSERT OR IGNORE INTO sent_place (upload_id, parent_id, name) VALUES (?, ?, ?)",
                               arguments: [id, place.parentID, place.name])
            }
            if let fileID {
                try db.execute(sql: "INSERT OR REPLACE INTO sent_version VALUES (?, ?, ?)",
                               arguments: [fileID, sha1, Date().timeIntervalSince1970])
            }
        }
    }

    /// Whether this mount sent content with `sha1` as a new version of `fileID` and has had no answer for it.
    public func sentAsVersion(fileID: String, sha1: String) throws -> Bool {
        try read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM sent_version WHERE file_id = ? AND sha1 = ?)",
                              arguments: [fileID, sha1]) ?? false
        }
    }

    /// Every place the entry sent its content to as a new file and got no answer from, but the one given.
    public func sentPlaces(id: Int64, except place: SentPlace? = nil) throws -> [SentPlace] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT parent_id, name FROM sent_place WHERE upload_id = ?", arguments: [id])
                .map { SentPlace(parentID: $0["parent_id"], name: $0["name"]) }
                .filter { $0 != place }
        }
    }

    /// Whether an entry other than `id` sends its content to Box file `fileID` (it took that file as its own).
    public func isTarget(fileID: String, ofAnotherThan id: Int64) throws -> Bool {
        try read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM upload WHERE file_id = ? AND id != ?)",
                              arguments: [fileID, id]) ?? false
        }
    }

    /// Whether an entry other than `id` has sent content with this SHA-1 (a file holding it may be that entry's).
    public func wasSent(sha1: String, byAnotherThan id: Int64) throws -> Bool {
        try read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM sent_digest WHERE sha1 = ? AND upload_id != ?)",
                              arguments: [sha1, id]) ?? false
        }
    }

    /// Forgets a place an earlier attempt was sent to, once it has been looked at.
    public func forgetSentPlace(id: Int64, _ place: SentPlace) throws {
        try write { db in
            try db.execute(sql: "DELETE FROM sent_place WHERE upload_id = ? AND parent_id = ? AND name = ?",
                           arguments: [id, place.parentID, place.name])
        }
    }

    /// Every SHA-1 the entry sent so far (as a new file or as a new version).
    public func sentDigests(id: Int64) throws -> Set<String> {
        try read { db in
            Set(try String.fetchAll(db, sql: "SELECT sha1 FROM sent_digest WHERE upload_id = ?", arguments: [id]))
        }
    }
}

extension UploadJournal {
    /// This mount's upload made `versionID` of Box file `fileID`.
    public func noteOwnVersion(fileID: String, versionID: String, sha1: String?) throws {
        try write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO own_version VALUES (?, ?, ?)",
                           arguments: [fileID, versionID, Date().timeIntervalSince1970])
            // Answered: the version is known by its id from now on, no longer by the content sent (`sent_version`).
            if let sha1 {
                try db.execute(sql: "DELETE FROM sent_version WHERE file_id = ? AND sha1 = ?", arguments: [fileID, sha1])
            }
        }
    }

    /// Drops own versions older than 30 days (by then no entry can still be based on a version older than
    /// them). Done when the journal opens, not at each upload.
    func pruneOwnVersions() throws {
        try write { db in
            try db.execute(sql: "DELETE FROM own_version WHERE created_at < ?",
                           arguments: [Date().timeIntervalSince1970 - 30 * 86_400])
            try db.execute(sql: "DELETE FROM sent_version WHERE created_at < ?",
                           arguments: [Date().timeIntervalSince1970 - 30 * 86_400])
        }
    }

    /// Versions of Box file `fileID` this mount's uploads created (any entry, this run or an earlier one).
    public func ownVersions(fileID: String) throws -> Set<String> {
        try read { db in
            Set(try String.fetchAll(db, sql: "SELECT version_id FROM own_version WHERE file_id = ?", arguments: [fileID]))
        }
    }
}

/// A folder and a name an entry's content was sent to as a new file.
public struct SentPlace: Sendable, Hashable {
    public let parentID: String
    public let name: String
}
