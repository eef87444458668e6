import GRDB

extension Store {
    /// Where the bytes of content `sha1` are: its region of a pack when packed, else its blob file (which may be
    /// missing: the caller checks).
    func blobLocation(sha1: String) async throws -> BlobLocation {
        try await database.read { db in try Self.blobLocation(db, sha1: sha1, blobs: self.blobs) }
    }

    static func blobLocation(_ db: Database, sha1: String, blobs: BlobStore) throws -> BlobLocation {
        if let row = try Row.fetchOne(db, sql: "SELECT pack, offset FROM packed_blob WHERE sha1 = ?", arguments: [sha1]) {
            return BlobLocation(path: blobs.packs.path(ofPack: row["pack"]), offset: row["offset"])
        }
        return BlobLocation(path: blobs.path(forSHA1: sha1), offset: 0)
    }

    /// Records where a packed blob is (nothing when it is a blob file of its own, or already recorded: the first
    /// copy stays the one read).
    static func recordPackedBlob(_ db: Database, sha1: String, at packed: PackedBlob?) throws {
        guard let packed else { return }
        try db.execute(sql: "INSERT OR IGNORE INTO packed_blob (sha1, pack, offset) VALUES (?, ?, ?)",
                       arguments: [sha1, packed.pack, packed.offset])
    }
}
