import Foundation

extension BoxClient {
    /// How far Box's clock may be behind ours when `createFolder` judges whether a folder was made by
    /// its own earlier attempt.
    static let clockSkewAllowance: Double = 120

    /// `POST /2.0/folders`: a new folder `name` in `parentID`. Retried like an idempotent call: if an
    /// earlier attempt may have landed (a 5xx, a lost answer) and the repeat meets 409
    /// `item_name_in_use` with a folder created since this call began, that folder is the one the
    /// earlier attempt made, and is returned. Otherwise 409 `item_name_in_use` carries the existing
    /// item in `BoxAPIError.conflicts`.
    public func createFolder(name: String, parentID: String) async throws -> BoxItem {
        let began = Date()
        let url = apiURL("folders", query: [("fields", BoxItem.fields)])
        var request = BoxRequest.json(.post, url, ["name": name, "parent": ["id": parentID]])
        request.acceptedStatuses = [201]
        request.resolvesRepeats = true
        do {
            return try await executeJSON(request, as: ItemDTO.self).item
        } catch let error as BoxAPIError where error.isNameInUse && error.earlierAttemptMayHaveLanded {
            guard let conflict = error.conflicts.first(where: { $0.kind == .folder && $0.name == name }),
                let existing = try? await folder(id: conflict.id), existing.parentID == parentID,
                let created = existing.createdAt, created >= began.addingTimeInterval(-Self.clockSkewAllowance)
            else { throw error }
            logger.info("an earlier attempt made the folder", metadata: ["folder": "\(existing.id)"])
            return existing
        }
    }

    /// `PUT /2.0/folders/{id}`: rename (`name`) and/or move (`parentID`). With `ifMatch`, 412 if the
    /// folder changed since that etag (Box's `If-Match` cannot prevent a move, per its guide).
    public func updateFolder(
        id: String, name: String? = nil, parentID: String? = nil, ifMatch: String? = nil
    ) async throws -> BoxItem {
        try await updateItem(kind: "folders", id: id, name: name, parentID: parentID, ifMatch: ifMatch)
    }

    /// `DELETE /2.0/folders/{id}`: to the trash or permanently, per the enterprise's settings.
    /// Without `recursive` a non-empty folder gives 400 `folder_not_empty`. Retried; a 404 to a repeat
    /// after an attempt that may have landed is that attempt's success.
    public func deleteFolder(id: String, recursive: Bool, ifMatch: String? = nil) async throws {
        var request = BoxRequest(
            method: .delete, url: apiURL("folders", id, query: [("recursive", recursive ? "true" : "false")]))
        request.acceptedStatuses = [204]
        request.ifMatch(ifMatch)
        try await executeDelete(request)
    }

    /// A DELETE, repeated after failures; a 404 to a repeat whose earlier attempt may have landed
    /// means that attempt deleted it.
    func executeDelete(_ request: BoxRequest) async throws {
        var request = request
        request.resolvesRepeats = true
        do {
            _ = try await execute(request)
        } catch let error as BoxAPIError where error.kind == .notFound && error.earlierAttemptMayHaveLanded {
            logger.info("an earlier attempt deleted it", metadata: ["request": "\(request.logDescription)"])
        }
    }

    /// The PUT shared by files and folders. Setting a name and a parent is idempotent, but a repeat
    /// with `If-Match` fails on the etag the first attempt moved (412), and Box may refuse the name
    /// the first attempt already gave the item (409 naming the item itself): after an attempt that may
    /// have landed, either answer is success when the item now has the name and parent asked for.
    func updateItem(kind: String, id: String, name: String?, parentID: String?, ifMatch: String?) async throws
        -> BoxItem
    {
        var body: [String: Any] = [:]
        if let name { body["name"] = name }
        if let parentID { body["parent"] = ["id": parentID] }
        var request = BoxRequest.json(.put, apiURL(kind, id, query: [("fields", BoxItem.fields)]), body)
        request.isIdempotent = true
        request.ifMatch(ifMatch)
        request.resolvesRepeats = true
        do {
            return try await executeJSON(request, as: ItemDTO.self).item
        } catch let error as BoxAPIError
            where error.earlierAttemptMayHaveLanded
            && (error.isPreconditionFailed || (error.isNameInUse && error.conflicts.contains { $0.id == id }))
        {
            let current = try? await (kind == "folders" ? folder(id: id) : file(id: id))
            guard let current, name.map({ $0 == current.name }) ?? true,
                parentID.map({ $0 == current.parentID }) ?? true
            else { throw error }
            logger.info("an earlier attempt made the change", metadata: ["request": "\(request.logDescription)"])
            return current
        }
    }
}
