import Foundation

/// The `shared_link` member of `PUT /2.0/files/{id}` and `PUT /2.0/folders/{id}`, with Box's rules:
/// `null` removes the link, `{}` creates one with the default access, absent members keep the link's current
/// values, a password needs `access: open` and 8+ characters with a digit, upper-case or special character.
enum SharedLinkUpdate {
    /// boxsim's "enterprise default" access level for `{"shared_link": {}}`.
    static let defaultAccess = "open"
    static let accessLevels: Set<String> = ["open", "company", "collaborators"]

    /// Applies `value` (the JSON member) to `item` for `user`; returns nothing, the caller renders the updated item.
    static func apply(_ value: Any, to item: ItemRecord, by user: UserRecord, store: Store) async throws {
        guard !item.isRoot else {
            throw BoxError(status: .forbidden, code: "access_denied_insufficient_permissions",
                           message: "Access denied - insufficient permission")
        }
        if value is NSNull {
            try await store.removeSharedLink(itemID: item.id!, by: user.id!)
            return
        }
        guard let settings = value as? [String: Any] else {
            throw BoxError.invalidParameter("shared_link", "Invalid value for 'shared_link'.")
        }
        let existing = try await store.sharedLink(itemID: item.id!)
        var link = existing ?? SharedLinkRecord(itemID: item.id!, token: Store.randomToken(), access: defaultAccess,
                                                password: nil, vanityName: nil, unsharedAt: nil, canDownload: true,
                                                canEdit: false, downloadCount: 0, previewCount: 0)
        if let access = settings["access"] {
            guard let access = access as? String, accessLevels.contains(access) else {
                throw BoxError.invalidParameter("access",
                                                "Invalid value for 'access'. Use open, company or collaborators.")
            }
            link.access = access
        }
        if settings.keys.contains("password") {
            link.password = try password(settings["password"], access: link.access)
        } else if link.access != "open" {
            link.password = nil
        }
        if settings.keys.contains("vanity_name") { link.vanityName = try vanityName(settings["vanity_name"]) }
        if settings.keys.contains("unshared_at") { link.unsharedAt = try unsharedAt(settings["unshared_at"]) }
        if let permissions = settings["permissions"] as? [String: Any] {
            if let download = permissions["can_download"] as? Bool {
                guard !download || link.access != "collaborators" else {
                    throw BoxError.invalidParameter("can_download",
                                                    "can_download can only be set for open or company access")
                }
                link.canDownload = download
            }
            if let edit = permissions["can_edit"] as? Bool {
                guard !edit || !item.isFolder else {
                    throw BoxError.invalidParameter("can_edit", "can_edit is only available for files")
                }
                link.canEdit = edit
            }
        }
        do {
            _ = try await store.setSharedLink(link, by: user.id!)
        } catch SharedLinkFailure.vanityNameTaken {
            throw BoxError.invalidParameter("vanity_name", "The vanity name is already in use")
        }
    }

    /// Box: "at least eight characters long and include a number, upper case letter, or a non-numeric or
    /// non-alphabetic character"; only for open links; `null` removes it.
    static func password(_ value: Any?, access: String) throws -> String? {
        if value == nil || value is NSNull { return nil }
        guard let password = value as? String else {
            throw BoxError.invalidParameter("password", "Invalid value for 'password'.")
        }
        guard access == "open" else {
            throw BoxError.invalidParameter("password", "A password can only be set when access is open")
        }
        let strong = password.contains { $0.isNumber || $0.isUppercase || !($0.isLetter || $0.isNumber) }
        guard password.count >= 8, strong else {
            throw BoxError.invalidParameter("password", "The password must be at least 8 characters long and "
                + "include a number, an upper case letter or a special character")
        }
        return password
    }

    static func vanityName(_ value: Any?) throws -> String? {
        if value == nil || value is NSNull { return nil }
        guard let name = value as? String, !name.isEmpty, name.count <= 255,
              name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else { throw BoxError.invalidParameter("vanity_name", "Invalid value for 'vanity_name'.") }
        return name
    }

    static func unsharedAt(_ value: Any?) throws -> Int64? {
        if value == nil || value is NSNull { return nil }
        guard let text = value as? String, let time = Timestamp.parse(text), time > Timestamp.now() else {
            throw BoxError.invalidParameter("unshared_at", "Invalid value for 'unshared_at'. Use a future date-time.")
        }
        return time
    }
}
