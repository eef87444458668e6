import BoxAPI
import Foundation
import GRDB

/// A Box file of the mount's own making that it is removing (see `JournalSchema` v4): the etag it had, so that
/// the delete never takes a file someone changed since (`If-Match`).
public struct Leftover: Sendable, Equatable {
    public var fileID: String
    public var etag: String?
    public var parentID: String?
    public var name: String

    public init(_ item: BoxItem) {
        self.init(fileID: item.id, etag: item.etag, parentID: item.parentID, name: item.name)
    }

    public init(fileID: String, etag: String?, parentID: String?, name: String) {
        self.fileID = fileID
        self.etag = etag
        self.parentID = parentID
        self.name = name
    }

    /// As an item, for the code that removes it and drops it from listings.
    public var item: BoxItem { BoxItem(id: fileID, kind: .file, name: name, etag: etag, parentID: parentID) }
}

extension UploadJournal {
    /// Records `leftover` before the mount asks Box to delete it; durable when this returns.
    public func noteLeftover(_ leftover: Leftover) async throws {
        let now = Date().timeIntervalSince1970
        try await commits.write { db in
            try db.execute(sql: """
                INSERT OR REPLACE INTO leftover (file_id, etag, parent_id, name, created_at) VALUES (?, ?, ?, ?, ?)
                """, arguments: [leftover.fileID, leftover.etag, leftover.parentID, leftover.name, now])
        }
    }

    /// Box no longer holds it (or it is someone else's now): kept a day as removed (`wasLeftover`).
    public func forgetLeftover(fileID: String) async throws {
        let now = Date().timeIntervalSince1970
        try await commits.write { db in
            try db.execute(sql: "UPDATE leftover SET removed_at = ? WHERE file_id = ?", arguments: [now, fileID])
        }
    }

    /// It stays on Box (changed by someone since, or Box refuses its removal): no leftover at all any more.
    public func dropLeftover(fileID: String) async throws {
        try await commits.write { db in
            try db.execute(sql: "DELETE FROM leftover WHERE file_id = ?", arguments: [fileID])
        }
    }

    /// Every leftover not yet confirmed gone, oldest first.
    public func leftovers() throws -> [Leftover] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM leftover WHERE removed_at IS NULL ORDER BY created_at")
                .map(Self.leftover(row:))
        }
    }

    /// The leftover with Box id `fileID`, if it is one not yet confirmed gone.
    public func leftover(fileID: String) throws -> Leftover? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM leftover WHERE file_id = ? AND removed_at IS NULL",
                             arguments: [fileID])
                .map(Self.leftover(row:))
        }
    }

    /// Whether Box file `fileID` is, or was in the last day, a leftover this mount removes.
    public func wasLeftover(fileID: String) throws -> Bool {
        try read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM leftover WHERE file_id = ?)", arguments: [fileID])
                ?? false
        }
    }

    /// Drops leftovers removed more than a day ago. Done when the journal opens.
    func pruneLeftovers() throws {
        try write { db in
            try db.execute(sql: "DELETE FROM leftover WHERE removed_at < ?",
                           arguments: [Date().timeIntervalSince1970 - 86_400])
        }
    }

    private static func leftover(row: Row) -> Leftover {
        Leftover(fileID: row["file_id"], etag: row["etag"], parentID: row["parent_id"], name: row["name"])
    }
}
