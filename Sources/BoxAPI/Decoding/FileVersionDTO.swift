/// Box's FileVersion JSON (any variant) → `BoxFileVersion`. Only `id` is required.
struct FileVersionDTO: Decodable {
    var version: BoxFileVersion

    private enum CodingKeys: String, CodingKey {
        case id, sha1, name, size
        case createdAt = "created_at"
        case modifiedAt = "modified_at"
        case modifiedBy = "modified_by"
        case trashedAt = "trashed_at"
        case versionNumber = "version_number"
        case uploaderDisplayName = "uploader_display_name"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        version = BoxFileVersion(
            id: try c.decodeID(forKey: .id),
            sha1: try c.decodeIfPresent(String.self, forKey: .sha1)?.lowercased(),
            name: try c.decodeIfPresent(String.self, forKey: .name),
            size: try c.decodeLenientInt64IfPresent(forKey: .size) ?? 0,
            createdAt: try c.decodeDateIfPresent(forKey: .createdAt),
            modifiedAt: try c.decodeDateIfPresent(forKey: .modifiedAt),
            modifiedBy: try c.decodeIfPresent(UserReferenceDTO.self, forKey: .modifiedBy)?.user,
            trashedAt: try c.decodeDateIfPresent(forKey: .trashedAt),
            versionNumber: try c.decodeIfPresent(String.self, forKey: .versionNumber),
            uploaderDisplayName: try c.decodeIfPresent(String.self, forKey: .uploaderDisplayName))
    }
}
