extension BoxClient {
    /// `POST /2.0/folders`: a new folder `name` in `parentID`. Not retried blindly (a repeat after a
    /// lost answer would meet 409 `item_name_in_use` with the folder made the first time).
    /// 409 `item_name_in_use` carries the existing item in `BoxAPIError.conflicts`.
    public func createFolder(name: String, parentID: String) async throws -> BoxItem {
        let url = apiURL("folders", query: [("fields", BoxItem.fields)])
        var request = BoxRequest.json(.post, url, ["name": name, "parent": ["id": parentID]])
        request.acceptedStatuses = [201]
        return try await executeJSON(request, as: ItemDTO.self).item
    }

    /// `PUT /2.0/folders/{id}`: rename (`name`) and/or move (`parentID`). With `ifMatch`, 412 if the
    /// folder changed since that etag (Box's `If-Match` cannot prevent a move, per its guide).
    public func updateFolder(
        id: String, name: String? = nil, parentID: String? = nil, ifMatch: String? = nil
    ) async throws -> BoxItem {
        try await updateItem(kind: "folders", id: id, name: name, parentID: parentID, ifMatch: ifMatch)
    }

    /// `DELETE /2.0/folders/{id}`: to the trash or permanently, per the enterprise's settings.
    /// Without `recursive` a non-empty folder gives 400 `folder_not_empty`.
    public func deleteFolder(id: String, recursive: Bool, ifMatch: String? = nil) async throws {
        var request = BoxRequest(
            method: .delete, url: apiURL("folders", id, query: [("recursive", recursive ? "true" : "false")]))
        request.acceptedStatuses = [204]
        request.ifMatch(ifMatch)
        _ = try await execute(request)
    }

    /// The PUT shared by files and folders. Retried only without `If-Match`: setting a name and a
    /// parent is idempotent, but a repeat with `If-Match` would fail on the etag the first one moved.
    func updateItem(kind: String, id: String, name: String?, parentID: String?, ifMatch: String?) async throws
        -> BoxItem
    {
        var body: [String: Any] = [:]
        if let name { body["name"] = name }
        if let parentID { body["parent"] = ["id": parentID] }
        var request = BoxRequest.json(.put, apiURL(kind, id, query: [("fields", BoxItem.fields)]), body)
        request.isIdempotent = true
        request.ifMatch(ifMatch)
        return try await executeJSON(request, as: ItemDTO.self).item
    }
}
