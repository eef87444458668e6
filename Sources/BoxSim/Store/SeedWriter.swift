import GRDB

/// Writes the seeder's rows: prepared statements on the writer connection, committed every `batchSize` rows,
/// so a million entries cost a few hundred commits instead of one each. Used inside one
/// `writeWithoutTransaction` for the whole seed, so no other write comes between its statements; that is
/// also why it may name the next file version's id itself (AUTOINCREMENT gives max(seq, max id) + 1),
/// which saves the UPDATE that would set `version_id` after the version's insert.
final class SeedWriter {
    static let batchSize = 20_000
    private let db: Database
    private let ownerID: Int64
    private let insertItem: Statement
    private let insertVersion: Statement
    private let selectChildren: Statement
    private let selectPacked: Statement
    private let insertPacked: Statement
    private var nextVersionID: Int64
    private var rowsInTransaction = 0

    init(_ db: Database, ownerID: Int64) throws {
        self.db = db
        self.ownerID = ownerID
        // The columns left out take their defaults, as ItemRecord.newFolder/newFile set them.
        insertItem = try db.makeStatement(sql: """
            INSERT INTO item (type, type_rank, name, name_key, parent_id, owner_id, created_at, modified_at,
                              content_created_at, content_modified_at, created_by, modified_by, version_id, size, sha1)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        insertVersion = try db.makeStatement(sql: """
            INSERT INTO file_version (id, file_id, sha1, size, created_at, modified_by) VALUES (?, ?, ?, ?, ?, ?)
            """)
        selectChildren = try db.makeStatement(sql: """
            SELECT id, type, name_key FROM item WHERE parent_id = ? AND item_status = 'active'
            """)
        selectPacked = try db.makeStatement(sql: "SELECT 1 FROM packed_blob WHERE sha1 = ?")
        insertPacked = try db.makeStatement(sql: "INSERT OR IGNORE INTO packed_blob (sha1, pack, offset) VALUES (?, ?, ?)")
        nextVersionID = 0
        try db.beginTransaction(.immediate)
        nextVersionID = try Self.nextID(db, table: "file_version")
    }

    /// The active children of a folder by case-folded name: their id and whether each is a folder.
    func children(of folderID: Int64) throws -> [String: (id: Int64, isFolder: Bool)] {
        var result: [String: (id: Int64, isFolder: Bool)] = [:]
        let rows = try Row.fetchCursor(selectChildren, arguments: [folderID])
        while let row = try rows.next() {
            result[row["name_key"]] = (row["id"], (row["type"] as String) == "folder")
        }
        return result
    }

    func insertFolder(named name: String, in parentID: Int64, time: Int64) throws -> Int64 {
        try insertItem.execute(arguments: ["folder", 0, name, ItemRecord.nameKey(name), parentID, ownerID, time, time,
                                           time, time, ownerID, ownerID, nil, 0, nil])
        let id = db.lastInsertedRowID
        try rowWritten()
        return id
    }

    func insertFile(named name: String, in parentID: Int64, sha1: String, size: Int64, modified: Int64,
                    time: Int64) throws {
        let versionID = nextVersionID
        try insertItem.execute(arguments: ["file", 1, name, ItemRecord.nameKey(name), parentID, ownerID, time, time,
                                           modified, modified, ownerID, ownerID, versionID, size, sha1])
        try insertVersion.execute(arguments: [versionID, db.lastInsertedRowID, sha1, size, time, ownerID])
        nextVersionID += 1
        try rowWritten()
    }

    /// Whether content `sha1` is in a pack already (rows of this seed included).
    func isPacked(_ sha1: String) throws -> Bool {
        try Bool.fetchOne(selectPacked, arguments: [sha1]) != nil
    }

    func insertPackedBlob(_ sha1: String, at packed: PackedBlob) throws {
        try insertPacked.execute(arguments: [sha1, packed.pack, packed.offset])
        try rowWritten()
    }

    /// Commits what is written (call once at the end).
    func finish() throws {
        if db.isInsideTransaction { try db.commit() }
    }

    /// Drops the rows of the open batch (after an error; the batches committed before stay).
    func abandon() {
        if db.isInsideTransaction { try? db.rollback() }
    }

    private func rowWritten() throws {
        rowsInTransaction += 1
        guard rowsInTransaction >= Self.batchSize else { return }
        try db.commit()
        try db.beginTransaction(.immediate)
        rowsInTransaction = 0
    }

    private static func nextID(_ db: Database, table: String) throws -> Int64 {
        let sequence = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?",
                                          arguments: [table]) ?? 0
        let largest = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM \(table)") ?? 0
        return max(sequence, largest) + 1
    }
}
