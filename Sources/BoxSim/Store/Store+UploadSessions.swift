import Foundation
import GRDB

/// A chunked upload session (for a new file in `folderID`, or a new version of `fileID`).
struct UploadSessionRecord: Codable, FetchableRecord, PersistableRecord, Sendable {
    static let databaseTableName = "upload_session"
    var id: String
    var userID: Int64
    var folderID: Int64?
    var fileID: Int64?
    var fileName: String
    var fileSize: Int64
    var partSize: Int64
    var totalParts: Int64
    var createdAt: Int64
    var expiresAt: Int64
    /// How many commit calls have been made (the first N may be answered 202, see ServerSettings).
    var commitCalls: Int

    enum CodingKeys: String, CodingKey {
        case id
        case userID = "user_id", folderID = "folder_id", fileID = "file_id", fileName = "file_name"
        case fileSize = "file_size", partSize = "part_size", totalParts = "total_parts", createdAt = "created_at"
        case expiresAt = "expires_at", commitCalls = "commit_calls"
    }
}

/// One uploaded part; its bytes are in `DIR/upload_sessions/<session>/<offset>`.
struct UploadPartRecord: Codable, FetchableRecord, PersistableRecord, Sendable, Equatable {
    static let databaseTableName = "upload_part"
    var sessionID: String
    var partOffset: Int64
    var partID: String
    var size: Int64
    var sha1: String

    enum CodingKeys: String, CodingKey {
        case size, sha1
        case sessionID = "session_id", partOffset = "part_offset", partID = "part_id"
    }
}

/// A part that overlaps an existing one with other content.
struct PartOverlap: Error {}

extension Store {
    var uploadSessionsDirectory: URL { dataDirectory.appendingPathComponent("upload_sessions") }

    func partPath(sessionID: String, offset: Int64) -> String {
        uploadSessionsDirectory.appendingPathComponent(sessionID).appendingPathComponent(String(offset)).path
    }

    func insertUploadSession(_ session: UploadSessionRecord) async throws {
        try await database.write { db in try session.insert(db) }
    }

    func uploadSession(id: String) async throws -> UploadSessionRecord? {
        try await database.read { db in try UploadSessionRecord.fetchOne(db, key: id) }
    }

    /// Records a part whose bytes `writer` holds (finished, with `sha1`). A part already at that offset with the
    /// same content is returned again (a retried PUT); with other content it is `PartOverlap`.
    func addPart(sessionID: String, offset: Int64, sha1: String, writer: BlobWriter) async throws -> UploadPartRecord {
        let size = writer.size
        let path = partPath(sessionID: sessionID, offset: offset)
        // BlobWriter is not Sendable; the move happens on this task, after the row is claimed.
        let claimed: (UploadPartRecord, isNew: Bool) = try await database.write { db in
            if let existing = try UploadPartRecord.fetchOne(db, key: ["session_id": sessionID, "part_offset": offset]) {
                guard existing.sha1 == sha1, existing.size == size else { throw PartOverlap() }
                return (existing, false)
            }
            let part = UploadPartRecord(sessionID: sessionID, partOffset: offset,
                                        partID: String(format: "%08X", UInt32.random(in: 0...UInt32.max)),
                                        size: size, sha1: sha1)
            try part.insert(db)
            return (part, true)
        }
        if claimed.isNew { try writer.move(to: path) } else { writer.discard() }
        return claimed.0
    }

    func parts(sessionID: String) async throws -> [UploadPartRecord] {
        try await database.read { db in
            try UploadPartRecord.filter(sql: "session_id = ?", arguments: [sessionID]).order(sql: "part_offset")
                .fetchAll(db)
        }
    }

    /// Counts a commit call; returns how many came before it.
    func countCommitCall(sessionID: String) async throws -> Int {
        try await database.write { db in
            let before = try Int.fetchOne(db, sql: "SELECT commit_calls FROM upload_session WHERE id = ?",
                                          arguments: [sessionID]) ?? 0
            try db.execute(sql: "UPDATE upload_session SET commit_calls = commit_calls + 1 WHERE id = ?",
                           arguments: [sessionID])
            return before
        }
    }

    /// Removes a session, its parts and their files.
    func deleteUploadSession(id: String) async throws {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM upload_part WHERE session_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM upload_session WHERE id = ?", arguments: [id])
        }
        try? FileManager.default.removeItem(at: uploadSessionsDirectory.appendingPathComponent(id))
    }
}
