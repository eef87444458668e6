/// Box's shared-link object (recorded `GetFileSharedLink.json` plus the spec's required
/// `effective_access`/`effective_permission`). URLs are absolute on the boxsim a client reached:
/// `<base>/s/<token>`, so clients parse them like `https://app.box.com/s/<token>`.
enum SharedLinkRenderer {
    static func json(_ link: SharedLinkRecord, item: ItemRecord, base: String) -> JSONValue {
        let vanityURL = link.vanityName.map { base + "/v/" + $0 }
        let downloadURL = downloadURL(link, item: item, base: base)
        let permissions: [(String, JSONValue)] = [
            ("can_download", .bool(link.canDownload)), ("can_preview", .bool(true)), ("can_edit", .bool(link.canEdit)),
        ]
        var pairs: [(String, JSONValue)] = [
            ("url", .string(base + "/s/" + link.token)),
            ("download_url", .string(downloadURL)),
            ("vanity_url", .string(vanityURL)),
        ]
        // Box names `vanity_name` only when one is set (recorded/Files/FullFile.json has none with a null vanity_url).
        if let vanityName = link.vanityName { pairs.append(("vanity_name", .string(vanityName))) }
        return .object(pairs + [
            ("effective_access", .string(link.access)),
            ("effective_permission", .string(effectivePermission(link))),
            ("is_password_enabled", .bool(link.password != nil)),
            ("unshared_at", Timestamp.json(link.unsharedAt)),
            ("download_count", .int(link.downloadCount)),
            ("preview_count", .int(link.previewCount)),
            ("access", .string(link.access)),
            ("permissions", .object(permissions)),
        ])
    }

    /// A file link's `download_url`, `<base>/shared/static/<token>.<ext>` (`SharedStaticRoutes`); nil for folders.
    static func downloadURL(_ link: SharedLinkRecord, item: ItemRecord, base: String) -> String? {
        guard !item.isFolder else { return nil }
        let parts = item.name.split(separator: ".", omittingEmptySubsequences: false)
        return base + "/shared/static/" + link.token + (parts.count > 1 ? "." + parts.last! : "")
    }

    static func effectivePermission(_ link: SharedLinkRecord) -> String {
        if link.canEdit { return "can_edit" }
        return link.canDownload ? "can_download" : "can_preview"
    }
}
