import Foundation

extension BoxClient {
    /// The most trash entries Box returns per page.
    static let trashPageLimit = 1000

    /// What the user deleted, as Box's trash lists it: `GET /2.0/folders/trash/items` with marker paging
    /// and `BoxItemWithPath.fields`. Only items trashed directly are listed: what was inside a trashed
    /// folder goes with it and is not listed on its own. Box gives a trashed item's `path_collection`
    /// as just its Trash folder; `item.parentID` is where it was (possibly itself in the trash).
    public func trashItems() async throws -> [BoxItemWithPath] {
        try await allPages(
            ["folders", "trash", "items"], query: [("fields", BoxItemWithPath.fields)], limit: Self.trashPageLimit,
            markerPaged: true, as: ItemWithPathDTO.self
        ).map(\.value)
    }

    /// One trashed file or folder: `GET /2.0/files/{id}/trash` or `GET /2.0/folders/{id}/trash`. Only an
    /// item trashed directly is found; one that went with a trashed folder above it is 404.
    public func trashedItem(id: String, kind: BoxItem.Kind) async throws -> BoxItemWithPath {
        let url = apiURL(kind == .folder ? "folders" : "files", id, "trash", query: [("fields", BoxItemWithPath.fields)])
        return try await executeJSON(.get(url), as: ItemWithPathDTO.self).value
    }
}

extension BoxAPIError {
    /// 404 `trashed`: the item is in the trash (Box serves neither its metadata nor its content as an active item).
    public var isTrashed: Bool { status == 404 && code == "trashed" }
}
