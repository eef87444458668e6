/// What an operation needs of the user's access to another user's item.
enum ItemAccess: Sendable {
    case read, download, upload, edit

    /// The access a route's downscoped-token scopes stand for (nil: read).
    init(scopes: Set<String>?) {
        guard let scopes else { self = .read; return }
        switch scopes {
        case ItemScopes.download: self = .download
        case ItemScopes.upload: self = .upload
        case ItemScopes.rename, ItemScopes.delete, ItemScopes.share: self = .edit
        default: self = .read
        }
    }
}

/// Box's collaboration roles and what each allows a collaborator (Box's role table: uploaders add files
/// without seeing the folder's contents, previewers see but cannot download, editors change and delete,
/// co-owners also manage collaborators).
enum CollaborationRoles {
    static let all = ["editor", "viewer", "previewer", "uploader", "previewer uploader", "viewer uploader", "co-owner"]
    static let editors: Set<String> = ["editor", "co-owner"]

    static func allows(_ role: String, _ access: ItemAccess, isFolder: Bool) -> Bool {
        switch access {
        case .read: return role != "uploader"
        case .download: return ["editor", "viewer", "co-owner", "viewer uploader"].contains(role)
        case .upload:
            return isFolder ? role.contains("uploader") || editors.contains(role) : editors.contains(role)
        case .edit: return editors.contains(role)
        }
    }

    /// The item's `permissions` for a collaborator with `role`.
    static func permissions(_ role: String, isFolder: Bool) -> JSONValue {
        guard case .object(let pairs) = ItemPermissions.json(isFolder: isFolder) else { return .null }
        return .object(pairs.map { name, _ -> (String, JSONValue) in
            let granted: Bool
            switch name {
            case "can_download": granted = allows(role, .download, isFolder: isFolder)
            case "can_upload": granted = allows(role, .upload, isFolder: isFolder)
            case "can_preview", "can_view_annotations_all", "can_view_annotations_self":
                granted = allows(role, .read, isFolder: isFolder)
            case "can_set_share_access": granted = role == "co-owner"
            default: granted = editors.contains(role)
            }
            return (name, .bool(granted))
        })
    }
}
