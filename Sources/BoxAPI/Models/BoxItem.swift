import Foundation

/// A file, folder or web link as the filesystem needs it.
public struct BoxItem: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        case file
        case folder
        case webLink = "web_link"
    }

    public var id: String
    public var kind: Kind
    public var name: String
    /// Bytes; 0 when Box did not send it (mini items). Folder sizes beyond Int64 are clamped.
    public var size: Int64
    public var createdAt: Date?
    public var modifiedAt: Date?
    /// When the content was created on the uploader's machine (files; folders mirror `createdAt`).
    public var contentCreatedAt: Date?
    /// When the content was last changed on the uploader's machine: a file's mtime.
    public var contentModifiedAt: Date?
    /// Changes with every change of the item; what `If-Match` / `If-None-Match` compare.
    public var etag: String?
    public var sequenceID: String?
    /// SHA-1 of the current version's content (files only), lower-case hex as Box sends it.
    public var sha1: String?
    /// The id of the current file version (files only).
    public var fileVersionID: String?
    /// nil for the root folder and when Box did not send `parent`.
    public var parentID: String?
    /// The file's lock on Box (files only; nil when unlocked or not sent).
    public var lock: Lock? = nil
    /// The login of the item's owner (`owned_by`; nil when not sent).
    public var ownerLogin: String? = nil
    /// The login of whoever last changed the item (`modified_by`; nil when not sent).
    public var modifiedByLogin: String? = nil
    /// The item's shared link (`shared_link.url`; nil when it has none or it was not sent).
    public var sharedLinkURL: String? = nil

    /// A Box file lock: who made it, and until when (nil: until unlocked).
    public struct Lock: Sendable, Equatable {
        public var id: String
        public var createdByID: String?
        public var createdByLogin: String?
        public var expiresAt: Date?
        public var isDownloadPrevented: Bool

        public init(id: String, createdByID: String?, createdByLogin: String?, expiresAt: Date?,
                    isDownloadPrevented: Bool) {
            self.id = id
            self.createdByID = createdByID
            self.createdByLogin = createdByLogin
            self.expiresAt = expiresAt
            self.isDownloadPrevented = isDownloadPrevented
        }

        /// Whether it binds user `userID` at `now`: someone else's lock, not expired.
        public func binds(_ userID: String?, at now: Date = Date()) -> Bool {
            if let expiresAt, expiresAt <= now { return false }
            return createdByID == nil || createdByID != userID
        }
    }

    public init(
        id: String, kind: Kind, name: String, size: Int64 = 0, createdAt: Date? = nil, modifiedAt: Date? = nil,
        contentCreatedAt: Date? = nil, contentModifiedAt: Date? = nil, etag: String? = nil,
        sequenceID: String? = nil, sha1: String? = nil, fileVersionID: String? = nil, parentID: String? = nil
    ) {
        self.id = id
        self.kind = kind
        self.name = name
        self.size = size
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
        self.contentCreatedAt = contentCreatedAt
        self.contentModifiedAt = contentModifiedAt
        self.etag = etag
        self.sequenceID = sequenceID
        self.sha1 = sha1
        self.fileVersionID = fileVersionID
        self.parentID = parentID
    }

    /// The `fields=` selection that fills every property in one request, listing pages included.
    public static let fields = [
        "type", "id", "name", "size", "created_at", "modified_at", "content_created_at",
        "content_modified_at", "etag", "sequence_id", "sha1", "file_version", "parent", "lock",
        "owned_by", "modified_by", "shared_link",
    ].joined(separator: ",")
}
