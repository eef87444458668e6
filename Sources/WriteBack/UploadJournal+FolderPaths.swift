import Foundation
import GRDB
import SystemCalls

/// The mount paths of the folders that hold waiting uploads (`folder_path`), so that `boxfs status` can name a
/// waiting file by its whole path without asking Box and without the folder being in the mount's memory: after a
/// remount, while Box is unreachable, or once the kernel forgot the folder. A path is written in the same
/// transaction as the entry it serves (no fsync of its own); paths of folders no entry aims at any more are dropped
/// when the journal opens.
extension UploadJournal {
    /// `record` for a file whose folder has the mount path `folderPath` ("" for the mount's root).
    @discardableResult
    public func recordGrouped(stagingPath: String, target: UploadTarget, contentModifiedAt: Date?, folderPath: String?)
        async throws -> UploadEntry
    {
        let now = Date()
        let insert = Self.insert(
            stagingPath: stagingPath, target: target, contentModifiedAt: contentModifiedAt, now: now)
        let folderID = target.parentID
        let id = try await commits.write { db in
            let id = try insert(db)
            if let folderPath { try Self.store(folderPath, of: folderID, in: db) }
            return id
        }
        return UploadEntry(
            id: id, stagingPath: stagingPath, target: target, contentModifiedAt: contentModifiedAt, createdAt: now)
    }

    /// Keeps `path` as the mount path of folder `folderID` (an entry was moved there, or the mount saw the folder
    /// under another path).
    public func recordFolderPath(_ path: String, of folderID: String) async throws {
        try await commits.write { db in try Self.store(path, of: folderID, in: db) }
    }

    /// A folder at mount path `old` is at `new` now: the kept paths of it and of the folders below it follow. Writes
    /// (and syncs) only when a kept path is there.
    public func moveFolderPaths(from old: String, to new: String) async throws {
        // A read, made off the caller's (async) thread: SQLite may wait on the disk.
        let affected = try await Syscall.offThePool { () throws in
            try self.read { db in
                try Bool.fetchOne(
                    db,
                    sql: "SELECT EXISTS (SELECT 1 FROM folder_path WHERE path = ?1 OR substr(path, 1, length(?1) + 1) = ?1 || '/')",
                    arguments: [old]) ?? false
            }
        }
        guard affected else { return }
        try await commits.write { db in
            try db.execute(
                sql: """
                    UPDATE folder_path SET path = ?2 || substr(path, length(?1) + 1)
                    WHERE path = ?1 OR substr(path, 1, length(?1) + 1) = ?1 || '/'
                    """,
                arguments: [old, new])
        }
    }

    /// The kept mount path of every folder a waiting entry aims at, by folder id.
    public func folderPaths() throws -> [String: String] {
        try read { db in
            var paths: [String: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT folder_id, path FROM folder_path") {
                paths[row["folder_id"]] = row["path"]
            }
            return paths
        }
    }

    private static func store(_ path: String, of folderID: String, in db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO folder_path (folder_id, path) VALUES (?, ?)",
                       arguments: [folderID, path])
    }

    /// Drops the paths of folders no entry aims at.
    func pruneFolderPaths() throws {
        try write { db in
            try db.execute(sql: "DELETE FROM folder_path WHERE folder_id NOT IN (SELECT parent_id FROM upload)")
        }
    }
}
