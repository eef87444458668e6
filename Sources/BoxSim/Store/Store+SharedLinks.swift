import GRDB

/// The shared link of one item (Box allows one per item).
struct SharedLinkRecord: Codable, FetchableRecord, PersistableRecord, Sendable {
    static let databaseTableName = "shared_link"
    var itemID: Int64
    /// The `<token>` of the link's `<base>/s/<token>` URL.
    var token: String
    /// open, company, collaborators
    var access: String
    /// Kept as given: boxsim is a test server, and the password never leaves it (only `is_password_enabled`).
    var password: String?
    var vanityName: String?
    var unsharedAt: Int64?
    var canDownload: Bool
    var canEdit: Bool
    var downloadCount: Int64
    var previewCount: Int64

    enum CodingKeys: String, CodingKey {
        case token, access, password
        case itemID = "item_id", vanityName = "vanity_name", unsharedAt = "unshared_at"
        case canDownload = "can_download", canEdit = "can_edit", downloadCount = "download_count"
        case previewCount = "preview_count"
    }

    /// A link past its `unshared_at` no longer works and is no longer shown.
    func isActive(now: Int64) -> Bool { unsharedAt.map { $0 > now } ?? true }
}

extension Store {
    func sharedLink(itemID: Int64) async throws -> SharedLinkRecord? {
        let link = try await database.read { db in try SharedLinkRecord.fetchOne(db, key: itemID) }
        return link?.isActive(now: Timestamp.now()) == true ? link : nil
    }

    /// The active link whose URL ends in `/s/<token>` or (with `vanity`) `/v/<name>`.
    func sharedLink(token: String, vanity: Bool) async throws -> SharedLinkRecord? {
        let link = try await database.read { db in
            try SharedLinkRecord.filter(sql: vanity ? "vanity_name = ?" : "token = ?", arguments: [token]).fetchOne(db)
        }
        return link?.isActive(now: Timestamp.now()) == true ? link : nil
    }

    /// Creates or replaces the item's link; an existing link keeps its token (Box keeps the URL) and counters.
    /// Throws `SharedLinkFailure.vanityNameTaken` when another item's link has the vanity name. Records
    /// ITEM_SHARED_CREATE or ITEM_SHARED_UPDATE for `userID`, as Box's user event stream does.
    func setSharedLink(_ link: SharedLinkRecord, by userID: Int64) async throws -> SharedLinkRecord {
        try await database.write { db in
            if let vanity = link.vanityName,
               try SharedLinkRecord.filter(sql: "vanity_name = ? AND item_id != ?", arguments: [vanity, link.itemID])
                .fetchCount(db) > 0 {
                throw SharedLinkFailure.vanityNameTaken
            }
            var stored = link
            let existing = try SharedLinkRecord.fetchOne(db, key: link.itemID)
            if let existing {
                stored.token = existing.token
                stored.downloadCount = existing.downloadCount
                stored.previewCount = existing.previewCount
            }
            try stored.save(db)
            try Self.touch(db, itemID: link.itemID)
            try Self.recordEvent(db, type: existing == nil ? "ITEM_SHARED_CREATE" : "ITEM_SHARED_UPDATE",
                                 itemID: link.itemID, userID: userID)
            return stored
        }
    }

    /// Removes the item's link; records ITEM_SHARED_UNSHARE for `userID` when there was one.
    func removeSharedLink(itemID: Int64, by userID: Int64) async throws {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM shared_link WHERE item_id = ?", arguments: [itemID])
            if db.changesCount > 0 { try Self.recordEvent(db, type: "ITEM_SHARED_UNSHARE", itemID: itemID, userID: userID) }
            try Self.touch(db, itemID: itemID)
        }
    }

    func countSharedDownload(itemID: Int64) async throws {
        try await database.write { db in
            try db.execute(sql: "UPDATE shared_link SET download_count = download_count + 1 WHERE item_id = ?",
                           arguments: [itemID])
        }
    }

    /// Sharing changes the item's etag, as on Box (sequence_id too).
    private static func touch(_ db: Database, itemID: Int64) throws {
        try db.execute(sql: "UPDATE item SET sequence_id = sequence_id + 1, etag = sequence_id + 1 WHERE id = ?",
                       arguments: [itemID])
    }
}

enum SharedLinkFailure: Error {
    case vanityNameTaken
}
