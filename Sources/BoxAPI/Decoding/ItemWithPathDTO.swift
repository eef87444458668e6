/// A File / Folder / WebLink JSON with its `path_collection`, `item_status`, `trashed_at` and `modified_by`
/// → `BoxItemWithPath` (search results, trash entries). The item itself is read as `ItemDTO` reads it.
struct ItemWithPathDTO: Decodable {
    var value: BoxItemWithPath

    private enum CodingKeys: String, CodingKey {
        case pathCollection = "path_collection"
        case itemStatus = "item_status"
        case trashedAt = "trashed_at"
        case modifiedBy = "modified_by"
    }

    private struct PathCollection: Decodable {
        var entries: [PathEntry]
    }

    private struct PathEntry: Decodable {
        var entry: BoxPathEntry

        private enum CodingKeys: String, CodingKey { case id, name }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            entry = BoxPathEntry(id: try c.decodeID(forKey: .id), name: try c.decodeIfPresent(String.self, forKey: .name) ?? "")
        }
    }

    init(from decoder: any Decoder) throws {
        let item = try ItemDTO(from: decoder).item
        let c = try decoder.container(keyedBy: CodingKeys.self)
        value = BoxItemWithPath(
            item: item,
            pathCollection: try c.decodeIfPresent(PathCollection.self, forKey: .pathCollection)?.entries.map(\.entry) ?? [],
            itemStatus: try c.decodeIfPresent(String.self, forKey: .itemStatus),
            trashedAt: try c.decodeDateIfPresent(forKey: .trashedAt),
            modifiedBy: try c.decodeIfPresent(UserReferenceDTO.self, forKey: .modifiedBy)?.user)
    }
}
