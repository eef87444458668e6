import Foundation

/// One version of a file, as `GET /2.0/files/{id}/versions` lists it (Box's FileVersion--Full).
/// Its content is fetched with `download(fileID:range:version:)`, pinned by `id`, and never changes.
public struct BoxFileVersion: Sendable, Equatable {
    public var id: String
    /// SHA-1 of this version's content, lower-case hex.
    public var sha1: String?
    /// The file's name when the version was saved (Box may send the current name).
    public var name: String?
    public var size: Int64
    /// When the version was uploaded.
    public var createdAt: Date?
    public var modifiedAt: Date?
    /// Who uploaded it.
    public var modifiedBy: BoxUserReference?
    /// Set when the version itself was deleted (it then sits in the version trash).
    public var trashedAt: Date?
    /// Box's 1-based count of the version ("1" is the first upload), when sent.
    public var versionNumber: String?
    public var uploaderDisplayName: String?

    public init(
        id: String, sha1: String? = nil, name: String? = nil, size: Int64 = 0, createdAt: Date? = nil,
        modifiedAt: Date? = nil, modifiedBy: BoxUserReference? = nil, trashedAt: Date? = nil,
        versionNumber: String? = nil, uploaderDisplayName: String? = nil
    ) {
        self.id = id
        self.sha1 = sha1
        self.name = name
        self.size = size
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
        self.modifiedBy = modifiedBy
        self.trashedAt = trashedAt
        self.versionNumber = versionNumber
        self.uploaderDisplayName = uploaderDisplayName
    }

    /// The `fields=` selection that fills every property.
    public static let fields = [
        "type", "id", "sha1", "name", "size", "created_at", "modified_at", "modified_by", "trashed_at",
        "version_number", "uploader_display_name",
    ].joined(separator: ",")
}

/// A user as Box nests it in other objects (User--Mini): `modified_by`, `created_by`, `owned_by`.
public struct BoxUserReference: Sendable, Equatable {
    public var id: String
    public var name: String?
    public var login: String?

    public init(id: String, name: String? = nil, login: String? = nil) {
        self.id = id
        self.name = name
        self.login = login
    }
}
