/// Turns stored items into Box's File/Folder JSON, for one viewing user.
struct ItemRenderer: Sendable {
    let store: Store
    let viewer: UserRecord
    /// What `entries` read ahead for a page; what is not in it is read per item.
    var known = PagePrefetch()

    /// The Trash as a path entry (Box's pseudo-folder "1").
    static let trash: JSONValue = .object([("type", .string("folder")), ("id", .string("1")), ("sequence_id", .null),
                                           ("etag", .null), ("name", .string("Trash"))])

    func idString(_ item: ItemRecord) -> String { item.isRoot ? "0" : String(item.id!) }

    /// File--Mini / Folder--Mini (used in listings, path collections, parents).
    func mini(_ item: ItemRecord) -> JSONValue {
        .object((item.isFolder ? ItemFields.folderMini : ItemFields.fileMini).compactMap { name in
            simpleValue(name, of: item).map { (name, $0) }
        })
    }

    /// The item with the standard fields, or with `fields=` the base set plus those requested.
    func render(_ item: ItemRecord, fields: FieldSelection) async throws -> JSONValue {
        try await render(item, names: Self.names(fields, isFolder: item.isFolder))
    }

    private static func names(_ fields: FieldSelection, isFolder: Bool) -> [String] {
        isFolder
            ? fields.resolve(standard: ItemFields.folderStandard, base: ItemFields.base, known: ItemFields.folderKnown)
            : fields.resolve(standard: ItemFields.fileStandard, base: ItemFields.base, known: ItemFields.fileKnown)
    }

    private func render(_ item: ItemRecord, names: [String]) async throws -> JSONValue {
        var pairs: [(String, JSONValue)] = []
        for name in names {
            if let value = try await value(name, of: item) { pairs.append((name, value)) }
        }
        return .object(pairs)
    }

    /// Entries of a listing: mini by default, else the selected fields (with what they need from the store read
    /// ahead for the whole page in one go).
    func entries(_ items: [ItemRecord], fields: FieldSelection) async throws -> [JSONValue] {
        if case .standard = fields { return items.map(mini) }
        let folderNames = Self.names(fields, isFolder: true), fileNames = Self.names(fields, isFolder: false)
        var renderer = self
        renderer.known = try await store.prefetch(for: items, names: Set(folderNames + fileNames))
        if !Set(folderNames + fileNames).isDisjoint(with: ["parent", "path_collection"]),
           items.contains(where: { $0.ownerID != viewer.id }) {
            renderer.known.sharedView = try await SharedView.read(store: store, viewer: viewer)
        }
        var entries: [JSONValue] = []
        entries.reserveCapacity(items.count)
        for item in items { entries.append(try await renderer.render(item, names: item.isFolder ? folderNames : fileNames)) }
        return entries
    }

    private func value(_ name: String, of item: ItemRecord) async throws -> JSONValue? {
        if let simple = simpleValue(name, of: item) { return simple }
        switch name {
        case "size":
            guard item.isFolder else { return .int(item.size) }
            if let size = known.folderSizes?[item.id!] { return .int(size) }
            return .int(try await store.folderSize(id: item.id!))
        case "path_collection":
            // A trashed item's path is the Trash, as Box shows it.
            if item.itemStatus == "trashed" { return .object([("total_count", .int(1)), ("entries", .array([Self.trash]))]) }
            let chain = try await visibleAncestors(of: item)
            return .object([("total_count", .int(chain.count)), ("entries", .array(chain.map(mini)))])
        case "parent":
            guard let parent = try await visibleParent(of: item) else { return .null }
            return mini(parent)
        case "created_by": return try await userMini(item.isRoot ? nil : item.createdBy)
        case "modified_by": return try await userMini(item.isRoot ? nil : item.modifiedBy)
        case "owned_by": return try await userMini(item.ownerID)
        case "shared_link":
            guard !item.isRoot, let link = try await sharedLink(item) else { return .null }
            return SharedLinkRenderer.json(link, item: item, base: RequestBase.url(.app))
        case "is_accessible_via_shared_link":
            guard !item.isRoot else { return .bool(false) }
            return .bool(try await sharedLink(item) != nil)
        case "item_collection":
            guard item.isFolder else { return nil }
            let besides = try await store.listedBesideChildren(of: item.id!, viewer: viewer)
            let page = try await store.children(of: item.id!, besides: besides, offset: 0, limit: 100)
            // No `order` here, unlike the items endpoint (every recorded item_collection, e.g. GetFolderInfo.json).
            return .object([
                ("total_count", .int(page.total)), ("entries", .array(page.items.map(mini))),
                ("offset", .int(0)), ("limit", .int(100)),
            ])
        case "lock":
            return try await FileLocks.json(item, store: store)
        case "permissions":
            if item.ownerID == viewer.id { return ItemPermissions.json(isFolder: item.isFolder) }
            if !item.isRoot, let role = try await store.collaborationRole(userID: viewer.id!, itemID: item.id!) {
                return CollaborationRoles.permissions(role, isFolder: item.isFolder)
            }
            return ItemPermissions.sharedViewer(isFolder: item.isFolder)
        case "version_number":
            guard !item.isFolder, let versionID = item.versionID else { return nil }
            return .string(String(try await store.versionNumber(versionID, fileID: item.id!)))
        case "file_count":
            guard item.isFolder else { return nil }
            if let count = known.fileCounts?[item.id!] { return .int(count) }
            return .int(try await store.fileCount(inFolder: item.id!))
        case "authenticated_download_url":
            guard !item.isFolder else { return nil }
            return .string(RequestBase.url(.api) + "/2.0/files/\(item.id!)/content")
        default:
            return nil
        }
    }

    /// Fields computed from the row alone (nil when the field does not apply to this item type).
    private func simpleValue(_ name: String, of item: ItemRecord) -> JSONValue? {
        let root = item.isRoot
        switch name {
        case "type": return .string(item.type)
        case "id": return .string(idString(item))
        case "etag": return root ? .null : .string(String(item.etag))
        case "sequence_id": return root ? .null : .string(String(item.sequenceID))
        case "name": return .string(item.name)
        case "sha1": return item.isFolder ? nil : .string(item.sha1)
        case "file_version":
            guard !item.isFolder else { return nil }
            return .object([
                ("type", .string("file_version")), ("id", .string(item.versionID.map(String.init))),
                ("sha1", .string(item.sha1)),
            ])
        case "description": return .string(item.description)
        case "created_at": return root ? .null : Timestamp.json(item.createdAt)
        case "modified_at": return root ? .null : Timestamp.json(item.modifiedAt)
        case "content_created_at": return root ? .null : Timestamp.json(item.contentCreatedAt)
        case "content_modified_at": return root ? .null : Timestamp.json(item.contentModifiedAt)
        case "trashed_at": return Timestamp.json(item.trashedAt)
        case "purged_at": return .null
        case "folder_upload_email", "expires_at", "classification": return .null
        case "disposition_at": return item.isFolder ? nil : .null
        case "allowed_shared_link_permissions":
            return .array(["can_download", "can_preview"].map { .string($0) } + (item.isFolder ? [] : [.string("can_edit")]))
        case "shared_link_options":
            return .object([("default_link_expiration_in", .int(0)), ("default_access_level", .string("open"))])
        case "default_invitee_role": return .string("editor")
        case "is_hide_collaborators_enabled", "can_widget_email_upload_overwrite_files": return .bool(false)
        case "watermark_info": return .object([("is_watermarked", .bool(false))])
        case "collections": return .array([])
        case "item_status": return .string(item.itemStatus)
        case "extension":
            guard !item.isFolder else { return nil }
            let parts = item.name.split(separator: ".", omittingEmptySubsequences: false)
            return .string(parts.count > 1 ? String(parts.last!) : "")
        case "comment_count": return item.isFolder ? nil : .int(0)
        case "tags": return .array([])
        case "is_package": return item.isFolder ? nil : .bool(false)
        case "has_collaborations", "is_externally_owned",
             "is_associated_with_app_item", "is_collaboration_restricted_to_enterprise":
            return .bool(false)
        case "can_non_owners_invite", "can_non_owners_view_collaborators": return .bool(true)
        case "sync_state": return item.isFolder ? .string("synced") : nil
        case "allowed_invitee_roles":
            return .array(["editor", "viewer", "previewer", "uploader", "previewer uploader", "viewer uploader",
                           "co-owner"].map { .string($0) })
        case "allowed_shared_link_access_levels":
            return .array(["open", "company", "collaborators"].map { .string($0) })
        case "uploader_display_name": return item.isFolder ? nil : .string(viewer.name)
        default: return nil
        }
    }

    // What a collaborator sees above a shared item: as on Box, not the owner's folders above the highest item
    // shared with them; that item shows in the collaborator's own root ("All Files", id 0), where it is listed.

    private func visibleAncestors(of item: ItemRecord) async throws -> [ItemRecord] {
        let chain = try await ancestors(of: item)
        guard let shared = try await sharedView(of: item) else { return chain }
        guard let top = (chain + [item]).firstIndex(where: { shared.roots.contains($0.id!) }) else { return chain }
        return [shared.root] + chain[top...]
    }

    private func visibleParent(of item: ItemRecord) async throws -> ItemRecord? {
        if let shared = try await sharedView(of: item), shared.roots.contains(item.id!) { return shared.root }
        return try await parent(of: item)
    }

    /// The viewer's shared roots and own root, for an item of another user's (nil for the viewer's own items).
    private func sharedView(of item: ItemRecord) async throws -> SharedView? {
        guard item.ownerID != viewer.id else { return nil }
        if let view = known.sharedView { return view }
        return try await SharedView.read(store: store, viewer: viewer)
    }

    // Read ahead by `entries`, else from the store.

    private func parent(of item: ItemRecord) async throws -> ItemRecord? {
        guard let id = item.parentID else { return nil }
        if let parent = known.items[id] { return parent }
        return try await store.item(id: id)
    }

    private func ancestors(of item: ItemRecord) async throws -> [ItemRecord] {
        if let chain = known.ancestors(of: item) { return chain }
        return try await store.ancestors(of: item)
    }

    private func user(_ id: Int64) async throws -> UserRecord? {
        if let user = known.users[id] { return user }
        return try await store.user(id: id)
    }

    private func sharedLink(_ item: ItemRecord) async throws -> SharedLinkRecord? {
        if let links = known.sharedLinks { return links[item.id!] }
        return try await store.sharedLink(itemID: item.id!)
    }

    private func userMini(_ id: Int64?) async throws -> JSONValue {
        guard let id, let user = try await user(id) else {
            return .object([("type", .string("user")), ("id", .string("")), ("name", .string("")),
                            ("login", .string(""))])
        }
        return UserRenderer.mini(user)
    }
}

/// The owner's permissions on an item (collaborators: `CollaborationRoles.permissions`).
enum ItemPermissions {
    static func json(isFolder: Bool) -> JSONValue {
        var names = ["can_download", "can_upload", "can_rename", "can_delete", "can_share", "can_invite_collaborator",
                     "can_set_share_access"]
        if !isFolder { names += ["can_preview", "can_comment", "can_annotate", "can_view_annotations_all",
                                 "can_view_annotations_self"] }
        return .object(names.map { ($0, .bool(true)) })
    }

    /// What someone who reached another user's item through a shared link may do: look and download.
    static func sharedViewer(isFolder: Bool) -> JSONValue {
        guard case .object(let pairs) = json(isFolder: isFolder) else { return .null }
        return .object(pairs.map { ($0.0, .bool(["can_download", "can_preview"].contains($0.0))) })
    }
}
