import Foundation

extension BoxClient {
    /// `PUT /2.0/files/{id}` with `{"lock": {"access": "lock", ...}}`: locks the file for this client's user
    /// (replacing the user's earlier lock), until `expiresAt` (nil: until unlocked); `preventDownload` keeps
    /// others from downloading it. Answers the file with its new `lock`. Setting the same lock again is
    /// harmless, so the call is repeated after a failure like any idempotent one.
    public func lockFile(id: String, expiresAt: Date? = nil, preventDownload: Bool = false) async throws -> BoxItem {
        var lock: [String: Any] = ["access": "lock", "is_download_prevented": preventDownload]
        if let expiresAt { lock["expires_at"] = BoxDate.format(expiresAt) }
        return try await setLock(fileID: id, lock)
    }

    /// `PUT /2.0/files/{id}` with `{"lock": null}`: removes the file's lock (only its creator may). Answers the
    /// file, unlocked.
    public func unlockFile(id: String) async throws -> BoxItem {
        try await setLock(fileID: id, NSNull())
    }

    private func setLock(fileID id: String, _ lock: Any) async throws -> BoxItem {
        var request = BoxRequest.json(.put, apiURL("files", id, query: [("fields", BoxItem.fields)]), ["lock": lock])
        request.isIdempotent = true
        return try await executeJSON(request, as: ItemDTO.self).item
    }
}

extension BoxAPIError {
    /// 403 `access_denied_item_locked`: someone else's lock on the file refuses the change.
    public var isItemLocked: Bool { code == "access_denied_item_locked" }
}
