/// Box's File / Folder / WebLink JSON (full, standard or mini) → `BoxItem`.
/// `type`, `id` and `name` are required; an unknown `type` is an error, not a guess.
struct ItemDTO: Decodable {
    var item: BoxItem

    private enum CodingKeys: String, CodingKey {
        case type, id, name, size, etag, sha1, parent
        case createdAt = "created_at"
        case modifiedAt = "modified_at"
        case contentCreatedAt = "content_created_at"
        case contentModifiedAt = "content_modified_at"
        case sequenceID = "sequence_id"
        case fileVersion = "file_version"
        case lock
        case ownedBy = "owned_by"
        case modifiedBy = "modified_by"
        case sharedLink = "shared_link"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let type = try c.decode(String.self, forKey: .type)
        guard let kind = BoxItem.Kind(rawValue: type) else {
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: c,
                debugDescription: "unknown item type \"\(type)\" (expected file, folder or web_link)")
        }
        item = BoxItem(
            id: try c.decodeID(forKey: .id),
            kind: kind,
            name: try c.decode(String.self, forKey: .name),
            size: try c.decodeLenientInt64IfPresent(forKey: .size) ?? 0,
            createdAt: try c.decodeDateIfPresent(forKey: .createdAt),
            modifiedAt: try c.decodeDateIfPresent(forKey: .modifiedAt),
            contentCreatedAt: try c.decodeDateIfPresent(forKey: .contentCreatedAt),
            contentModifiedAt: try c.decodeDateIfPresent(forKey: .contentModifiedAt),
            etag: try c.decodeIfPresent(String.self, forKey: .etag),
            sequenceID: try c.decodeIfPresent(String.self, forKey: .sequenceID),
            sha1: try c.decodeIfPresent(String.self, forKey: .sha1)?.lowercased(),
            fileVersionID: try c.decodeIfPresent(ReferenceDTO.self, forKey: .fileVersion)?.id,
            parentID: try c.decodeIfPresent(ReferenceDTO.self, forKey: .parent)?.id)
        item.lock = try c.decodeIfPresent(LockDTO.self, forKey: .lock)?.lock
        item.ownerLogin = try c.decodeIfPresent(UserReferenceDTO.self, forKey: .ownedBy)?.login
        item.modifiedByLogin = try c.decodeIfPresent(UserReferenceDTO.self, forKey: .modifiedBy)?.login
        item.sharedLinkURL = try c.decodeIfPresent(SharedLinkDTO.self, forKey: .sharedLink)?.url
    }
}

/// A user as an item or a version names it (`owned_by`, `modified_by`, a lock's `created_by`): Box's user--mini
/// (`{type, id, name, login}`). Box names the root folder's creator and modifier with empty strings
/// (`"id": ""`): no user, not an error.
struct UserReferenceDTO: Decodable {
    var id: String?
    var name: String?
    var login: String?

    /// As the model has it; nil for no user.
    var user: BoxUserReference? { id.map { BoxUserReference(id: $0, name: name, login: login) } }

    private enum CodingKeys: String, CodingKey { case id, name, login }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let text = try? c.decodeIfPresent(String.self, forKey: .id) {
            id = text.isEmpty ? nil : text
        } else {
            id = try c.decodeIDIfPresent(forKey: .id)
        }
        name = try c.decodeIfPresent(String.self, forKey: .name)
        login = try c.decodeIfPresent(String.self, forKey: .login).flatMap { $0.isEmpty ? nil : $0 }
    }
}

/// An item's `shared_link` object (`null` when it has none): only its `url` is kept.
struct SharedLinkDTO: Decodable {
    var url: String?
}

/// Box's Lock JSON (`lock` of a file; `null` when unlocked).
struct LockDTO: Decodable {
    var lock: BoxItem.Lock

    private enum CodingKeys: String, CodingKey {
        case id
        case createdBy = "created_by"
        case expiresAt = "expires_at"
        case isDownloadPrevented = "is_download_prevented"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let creator = try c.decodeIfPresent(UserReferenceDTO.self, forKey: .createdBy)
        lock = BoxItem.Lock(
            id: try c.decodeIDIfPresent(forKey: .id) ?? "",
            createdByID: creator?.id, createdByLogin: creator?.login,
            expiresAt: try c.decodeDateIfPresent(forKey: .expiresAt),
            isDownloadPrevented: try c.decodeIfPresent(Bool.self, forKey: .isDownloadPrevented) ?? false)
    }
}

/// One page of `GET /folders/{id}/items`, marker-based (`next_marker`, null or "" at the end) or
/// offset-based (`total_count`, `offset`) when a server ignores `usemarker`.
typealias ItemPageDTO = PageDTO<ItemDTO>

/// One page of a Box collection (folder items, the trash, search results, file versions), marker-based
/// (`next_marker`, null or "" at the end) or offset-based (`total_count`, `offset`).
struct PageDTO<Entry: Decodable>: Decodable {
    var entries: [Entry]
    /// nil or "" at the end of a marker-paged listing.
    var nextMarker: String?
    /// Whether the page has a `next_marker` field at all, i.e. marker paging is in effect.
    var isMarkerPaged: Bool
    var totalCount: Int64?
    var offset: Int64?

    private enum CodingKeys: String, CodingKey {
        case entries, offset
        case nextMarker = "next_marker"
        case totalCount = "total_count"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        entries = try c.decode([Entry].self, forKey: .entries)
        isMarkerPaged = c.contains(.nextMarker)
        nextMarker = try c.decodeIfPresent(String.self, forKey: .nextMarker)
        totalCount = try c.decodeLenientInt64IfPresent(forKey: .totalCount)
        offset = try c.decodeLenientInt64IfPresent(forKey: .offset)
    }
}
