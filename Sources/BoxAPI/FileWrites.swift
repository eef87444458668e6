extension BoxClient {
    /// `PUT /2.0/files/{id}`: rename (`name`) and/or move (`parentID`); 412 with a stale `ifMatch`.
    ///
    /// Box has no call that changes only `content_modified_at`: it is set by an upload
    /// (`attributes.content_modified_at`) or a session commit, so a new mtime travels with content.
    public func updateFile(
        id: String, name: String? = nil, parentID: String? = nil, ifMatch: String? = nil
    ) async throws -> BoxItem {
        try await updateItem(kind: "files", id: id, name: name, parentID: parentID, ifMatch: ifMatch)
    }

    /// `DELETE /2.0/files/{id}`: to the trash or permanently, per the enterprise's settings.
    /// Retried; a 404 to a repeat after an attempt that may have landed is that attempt's success.
    public func deleteFile(id: String, ifMatch: String? = nil) async throws {
        var request = BoxRequest(method: .delete, url: apiURL("files", id))
        request.acceptedStatuses = [204]
        request.ifMatch(ifMatch)
        try await executeDelete(request)
    }

    /// `POST /2.0/files/{id}/copy` into `parentID`, optionally under another `name`. 409
    /// `item_name_in_use` carries the existing item. Not retried blindly.
    public func copyFile(id: String, toParentID parentID: String, name: String? = nil) async throws -> BoxItem {
        var body: [String: Any] = ["parent": ["id": parentID]]
        if let name { body["name"] = name }
        var request = BoxRequest.json(.post, apiURL("files", id, "copy", query: [("fields", BoxItem.fields)]), body)
        request.acceptedStatuses = [201]
        return try await executeJSON(request, as: ItemDTO.self).item
    }
}
