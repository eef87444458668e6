import Foundation

extension BoxClient {
    /// `POST /2.0/files/{id}` or `POST /2.0/folders/{id}`: restores a trashed item (a folder with everything
    /// that went to the trash with it) to the folder it was in; `name` gives it another name there. 409
    /// `item_name_in_use` when the name is taken (`conflicts`), 403/404 when Box refuses or no longer has it.
    /// Repeated after a 5xx or a lost answer: when the repeat is refused, the item found active again is the
    /// earlier attempt's work. A 404 is checked the same way even without a failure seen here, since the HTTP
    /// layer itself sends a request again on a fresh connection when a reused one dies before any answer.
    public func restoreTrashedItem(_ kind: BoxItem.Kind, id: String, name: String? = nil) async throws -> BoxItem {
        var body: [String: Any] = [:]
        if let name { body["name"] = name }
        var request = BoxRequest.json(.post, apiURL(Self.collection(kind), id, query: [("fields", BoxItem.fields)]), body)
        request.acceptedStatuses = [201]
        request.resolvesRepeats = true
        do {
            return try await executeJSON(request, as: ItemDTO.self).item
        } catch let error as BoxAPIError where error.earlierAttemptMayHaveLanded || error.kind == .notFound {
            guard let current = try? await (kind == .folder ? folder(id: id) : file(id: id)) else { throw error }
            logger.info("an earlier attempt restored it", metadata: ["request": "\(request.logDescription)"])
            return current
        }
    }

    /// `DELETE /2.0/files/{id}/trash` or `DELETE /2.0/folders/{id}/trash`: deletes a trashed item for good
    /// (204). Repeated after failures; a 404 to a repeat after an attempt that may have landed is that
    /// attempt's success.
    public func purgeTrashedItem(_ kind: BoxItem.Kind, id: String) async throws {
        var request = BoxRequest(method: .delete, url: apiURL(Self.collection(kind), id, "trash"))
        request.acceptedStatuses = [204]
        try await executeDelete(request)
    }

    /// `files` or `folders`: the path segment of an item's kind.
    static func collection(_ kind: BoxItem.Kind) -> String {
        kind == .folder ? "folders" : kind == .webLink ? "web_links" : "files"
    }
}
