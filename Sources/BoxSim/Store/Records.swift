import GRDB

/// A Box user (admin, managed user, app user or service account).
struct UserRecord: Codable, FetchableRecord, MutablePersistableRecord, Sendable {
    static let databaseTableName = "user"
    var id: Int64?
    var name: String
    var login: String
    /// admin, user (managed), app_user, service_account
    var kind: String
    var status: String
    var spaceAmount: Int64
    var maxUploadSize: Int64
    var createdAt: Int64
    var modifiedAt: Int64
    var rootFolderID: Int64?
    var enterpriseID: Int64?

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    enum CodingKeys: String, CodingKey {
        case id, name, login, kind, status
        case spaceAmount = "space_amount", maxUploadSize = "max_upload_size"
        case createdAt = "created_at", modifiedAt = "modified_at"
        case rootFolderID = "root_folder_id", enterpriseID = "enterprise_id"
    }
}

/// A file or folder. Each user's root folder is a row with `isRoot`, shown to that user as id "0".
struct ItemRecord: Codable, FetchableRecord, MutablePersistableRecord, Sendable {
    static let databaseTableName = "item"
    var id: Int64?
    var type: String
    /// 0 for folders, 1 for files: Box lists folders before files.
    var typeRank: Int
    var name: String
    /// Case-folded name for case-insensitive uniqueness and sorting.
    var nameKey: String
    var parentID: Int64?
    var ownerID: Int64
    var isRoot: Bool
    var sequenceID: Int64
    var etag: Int64
    var description: String
    var createdAt: Int64
    var modifiedAt: Int64
    var contentCreatedAt: Int64
    var contentModifiedAt: Int64
    var createdBy: Int64
    var modifiedBy: Int64
    var versionID: Int64?
    var size: Int64
    var sha1: String?
    var itemStatus: String
    var trashedAt: Int64?

    var isFolder: Bool { type == "folder" }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    static func nameKey(_ name: String) -> String { name.lowercased() }

    enum CodingKeys: String, CodingKey {
        case id, type, name, description, size, sha1, etag
        case typeRank = "type_rank", nameKey = "name_key", parentID = "parent_id", ownerID = "owner_id"
        case isRoot = "is_root", sequenceID = "sequence_id"
        case createdAt = "created_at", modifiedAt = "modified_at"
        case contentCreatedAt = "content_created_at", contentModifiedAt = "content_modified_at"
        case createdBy = "created_by", modifiedBy = "modified_by", versionID = "version_id"
        case itemStatus = "item_status", trashedAt = "trashed_at"
    }
}

/// One stored version of a file's content; the bytes live in the blob store under `sha1`.
struct FileVersionRecord: Codable, FetchableRecord, MutablePersistableRecord, Sendable {
    static let databaseTableName = "file_version"
    var id: Int64?
    var fileID: Int64
    var sha1: String
    var size: Int64
    var createdAt: Int64
    var modifiedBy: Int64
    /// Deleting a past version moves it to the trash (`DELETE /files/{id}/versions/{version_id}`).
    var trashedAt: Int64? = nil
    var trashedBy: Int64? = nil
    /// Set when a trashed version is restored (`PUT /files/{id}/versions/{version_id}`).
    var restoredAt: Int64? = nil
    var restoredBy: Int64? = nil

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    enum CodingKeys: String, CodingKey {
        case id, sha1, size
        case fileID = "file_id", createdAt = "created_at", modifiedBy = "modified_by"
        case trashedAt = "trashed_at", trashedBy = "trashed_by", restoredAt = "restored_at", restoredBy = "restored_by"
    }
}

/// A bearer token (developer, access or refresh) for a user.
struct TokenRecord: Codable, FetchableRecord, PersistableRecord, Sendable {
    static let databaseTableName = "token"
    var token: String
    var userID: Int64
    /// developer, access, refresh
    var kind: String
    var expiresAt: Int64?
    var clientID: String?
    /// Space-separated scopes; nil means every scope.
    var scopes: String?
    /// Downscoped tokens are limited to this item and what is under it.
    var restrictedItemID: Int64?
    var family: String?
    /// Tokens exchanged with `box_shared_link`: the link's token, through which they reach its item.
    var sharedLinkToken: String? = nil

    enum CodingKeys: String, CodingKey {
        case token, kind, scopes, family
        case userID = "user_id", expiresAt = "expires_at", clientID = "client_id"
        case restrictedItemID = "restricted_item_id", sharedLinkToken = "shared_link_token"
    }
}
