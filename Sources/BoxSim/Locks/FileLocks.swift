import Foundation
import Hummingbird

/// File locks (`PUT /2.0/files/{id}` with `{"lock": {"access": "lock", "expires_at"?, "is_download_prevented"?}}`,
/// `{"lock": null}` to unlock) and what they refuse. A lock keeps everyone but its creator from changing the file:
/// a new version, rename, move, description, shared link, delete, promote or delete of a version answer 403
/// `access_denied_item_locked`, the code Box answered for an upload of a new version of a locked file
/// (box/box-ui-elements#4831); with `is_download_prevented`, downloads by others too.
enum FileLocks {
    /// Scopes of the routes a lock refuses to anyone but its creator.
    static let changeScopes = [ItemScopes.upload, ItemScopes.rename, ItemScopes.delete, ItemScopes.share]

    static func locked() -> BoxError {
        BoxError(status: .forbidden, code: "access_denied_item_locked", message: "The item is locked")
    }

    /// Refuses a change (or a prevented download) of a file locked by someone other than `user`.
    static func check(_ file: ItemRecord, user: UserRecord?, scopes: Set<String>?, store: Store) async throws {
        guard !file.isFolder, let scopes, let user else { return }
        let changes = changeScopes.contains(scopes)
        guard changes || scopes == ItemScopes.download,
              let lock = try await store.lock(itemID: file.id!), lock.createdBy != user.id else { return }
        if changes || lock.isDownloadPrevented { throw locked() }
    }

    /// Applies the `lock` member of a file update.
    static func apply(_ value: Any, to file: ItemRecord, by user: UserRecord, store: Store) async throws {
        guard !file.isFolder else { throw BoxError.invalidParameter("lock", "Only files can be locked") }
        if value is NSNull {
            try await store.removeLock(itemID: file.id!, by: user.id!)
            return
        }
        guard let lock = value as? [String: Any], (lock["access"] ?? lock["type"]) as? String == "lock" else {
            throw BoxError.invalidParameter("lock", "Expected {\"access\": \"lock\"} or null")
        }
        var expiresAt: Int64?
        if let text = lock["expires_at"], !(text is NSNull) {
            guard let text = text as? String, let time = Timestamp.parse(text), time > Timestamp.now() else {
                throw BoxError.invalidParameter("lock.expires_at", "Invalid value '\(lock["expires_at"]!)'.")
            }
            expiresAt = time
        }
        _ = try await store.setLock(itemID: file.id!, by: user.id!, expiresAt: expiresAt,
                                    isDownloadPrevented: lock["is_download_prevented"] as? Bool ?? false)
    }

    /// The `lock` field as Box's recording (Files/LockFile.json) shows it; null without a lock.
    static func json(_ file: ItemRecord, store: Store) async throws -> JSONValue {
        guard !file.isFolder, let lock = try await store.lock(itemID: file.id!) else { return .null }
        let creator = try await store.user(id: lock.createdBy).map(UserRenderer.mini) ?? .null
        return .object([
            ("type", .string("lock")), ("id", .string(String(lock.id!))), ("created_by", creator),
            ("created_at", Timestamp.json(lock.createdAt)), ("expires_at", Timestamp.json(lock.expiresAt)),
            ("is_download_prevented", .bool(lock.isDownloadPrevented)),
        ])
    }
}
