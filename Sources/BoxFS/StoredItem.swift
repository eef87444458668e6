import BoxAPI
import Foundation

/// A `BoxItem` as the tree on disk keeps it (`DiskTree`): every property, in short keys, as JSON.
public struct StoredItem: Codable, Sendable {
    struct StoredLock: Codable, Sendable {
        var id: String
        var by: String?
        var byLogin: String?
        var expires: Date?
        var noDownload: Bool
    }

    var id: String
    var kind: String
    var name: String
    var size: Int64
    var created: Date?
    var modified: Date?
    var contentCreated: Date?
    var contentModified: Date?
    var etag: String?
    var sequence: String?
    var sha1: String?
    var version: String?
    var parent: String?
    var lock: StoredLock?
    var owner: String?
    var modifiedBy: String?
    var link: String?

    public init(_ item: BoxItem) {
        id = item.id
        kind = item.kind.rawValue
        name = item.name
        size = item.size
        created = item.createdAt
        modified = item.modifiedAt
        contentCreated = item.contentCreatedAt
        contentModified = item.contentModifiedAt
        etag = item.etag
        sequence = item.sequenceID
        sha1 = item.sha1
        version = item.fileVersionID
        parent = item.parentID
        lock = item.lock.map {
            StoredLock(id: $0.id, by: $0.createdByID, byLogin: $0.createdByLogin, expires: $0.expiresAt,
                       noDownload: $0.isDownloadPrevented)
        }
        owner = item.ownerLogin
        modifiedBy = item.modifiedByLogin
        link = item.sharedLinkURL
    }

    /// The item, or nil for a kind this build does not know.
    public var item: BoxItem? {
        guard let kind = BoxItem.Kind(rawValue: kind) else { return nil }
        var item = BoxItem(
            id: id, kind: kind, name: name, size: size, createdAt: created, modifiedAt: modified,
            contentCreatedAt: contentCreated, contentModifiedAt: contentModified, etag: etag, sequenceID: sequence,
            sha1: sha1, fileVersionID: version, parentID: parent)
        item.lock = lock.map {
            BoxItem.Lock(id: $0.id, createdByID: $0.by, createdByLogin: $0.byLogin, expiresAt: $0.expires,
                         isDownloadPrevented: $0.noDownload)
        }
        item.ownerLogin = owner
        item.modifiedByLogin = modifiedBy
        item.sharedLinkURL = link
        return item
    }
}
