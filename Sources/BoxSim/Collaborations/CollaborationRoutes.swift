import Hummingbird

/// Collaborations enough to share a folder or file between users: `POST /2.0/collaborations` (`item`,
/// `accessible_by` user `id` or `login`, `role`), `GET /2.0/collaborations/{id}`, `GET /2.0/folders/{id}/collaborations`
/// and `GET /2.0/files/{id}/collaborations`, `PUT /2.0/collaborations/{id}` (`role`), `DELETE /2.0/collaborations/{id}`.
/// Collaborations are accepted at once (no invitations); only users of boxsim can be invited. The owner and
/// editors/co-owners manage them; a collaborator may also end their own.
struct CollaborationRoutes: Sendable {
    let store: Store

    func register(on group: RouterGroup<BoxContext>) {
        group.post("collaborations") { request, context in
            let user = try context.requireUser()
            let body = try await JSONBody.read(request)
            let item = try await target(body["item"], context: context)
            let invitee = try await invitee(body["accessible_by"])
            guard let role = body["role"] as? String, CollaborationRoles.all.contains(role) else {
                throw BoxError.invalidParameter("role", "Invalid value '\(body["role"] ?? "")'.")
            }
            guard invitee.id != item.ownerID else {
                throw BoxError.badRequest("The owner cannot be a collaborator", code: "user_already_collaborator")
            }
            do {
                let collaboration = try await store.addCollaboration(itemID: item.id!, userID: invitee.id!, role: role,
                                                                     by: user.id!)
                return jsonResponse(try await render(collaboration), status: .created)
            } catch CollaborationFailure.alreadyCollaborator {
                throw BoxError.badRequest("User is already a collaborator", code: "user_already_collaborator")
            }
        }
        group.get("collaborations/:id") { _, context in
            let collaboration = try await existing(context.parameters.get("id"), context: context, use: .see)
            return jsonResponse(try await render(collaboration))
        }
        group.put("collaborations/:id") { request, context in
            let user = try context.requireUser()
            let collaboration = try await existing(context.parameters.get("id"), context: context, use: .change)
            let body = try await JSONBody.read(request)
            guard let role = body["role"] as? String, CollaborationRoles.all.contains(role) else {
                throw BoxError.invalidParameter("role", "Invalid value '\(body["role"] ?? "")'.")
            }
            guard let changed = try await store.changeCollaborationRole(id: collaboration.id!, role: role, by: user.id!)
            else { throw BoxError.notFound() }
            return jsonResponse(try await render(changed))
        }
        group.delete("collaborations/:id") { _, context in
            let user = try context.requireUser()
            let collaboration = try await existing(context.parameters.get("id"), context: context, use: .end)
            try await store.removeCollaboration(id: collaboration.id!, by: user.id!)
            return Response(status: .noContent)
        }
        for kind in ["folders", "files"] {
            group.get("\(kind)/:id/collaborations") { request, context in
                let lookup = ItemLookup(store: store)
                let item = kind == "folders"
                    ? try await lookup.folder(context.parameters.get("id"), context: context, scopes: ItemScopes.read)
                    : try await lookup.file(context.parameters.get("id"), context: context, scopes: ItemScopes.read)
                let (_, limit) = try VersionRoutes.paging(request, defaultLimit: 100, maxLimit: 1000)
                let all = try await store.collaborations(itemID: item.id!)
                var entries: [JSONValue] = []
                for collaboration in all.prefix(limit) { entries.append(try await render(collaboration)) }
                return jsonResponse(.object([("total_count", .int(all.count)), ("entries", .array(entries)),
                                             ("limit", .int(limit))]))
            }
        }
    }

    /// The item of a new collaboration, which the user must own or edit.
    private func target(_ value: Any?, context: BoxContext) async throws -> ItemRecord {
        guard let item = value as? [String: Any], let type = item["type"] as? String, ["file", "folder"].contains(type),
              let id = item["id"] as? String ?? JSONBody.int64(item["id"]).map(String.init)
        else { throw BoxError.invalidParameter("item", "'item' needs a type (file or folder) and an id") }
        let lookup = ItemLookup(store: store)
        let found = type == "folder"
            ? try await lookup.folder(id, context: context, scopes: ItemScopes.share)
            : try await lookup.file(id, context: context, scopes: ItemScopes.share)
        guard !found.isRoot else {
            throw BoxError(status: .forbidden, code: "access_denied_insufficient_permissions",
                           message: "Access denied - insufficient permission")
        }
        return found
    }

    private func invitee(_ value: Any?) async throws -> UserRecord {
        guard let grantee = value as? [String: Any], (grantee["type"] as? String ?? "user") == "user" else {
            throw BoxError.invalidParameter("accessible_by", "'accessible_by' must name a user (groups are not supported)")
        }
        if let id = grantee["id"] as? String ?? JSONBody.int64(grantee["id"]).map(String.init) {
            guard let userID = Int64(id), let user = try await store.user(id: userID) else { throw BoxError.notFound() }
            return user
        }
        guard let login = grantee["login"] as? String, let user = try await store.user(login: login) else {
            throw BoxError.notFound()
        }
        return user
    }

    /// What a caller wants of a collaboration: see it, end it, or change its role.
    private enum Use { case see, end, change }

    /// A collaboration on an item the user owns or collaborates on. Anyone with access sees it; the owner and
    /// editors/co-owners end or change it; its collaborator may end it (leave) but not change their own role.
    private func existing(_ idText: String?, context: BoxContext, use: Use) async throws -> CollaborationRecord {
        let user = try context.requireUser()
        guard let collaboration = try await store.collaboration(id: try ItemLookup.parseID(idText)),
              let item = try await store.item(id: collaboration.itemID)
        else { throw BoxError.notFound() }
        if item.ownerID == user.id { return collaboration }
        let forbidden = BoxError(status: .forbidden, code: "access_denied_insufficient_permissions",
                                 message: "Access denied - insufficient permission")
        if collaboration.userID == user.id {
            guard use != .change else { throw forbidden }
            return collaboration
        }
        guard let role = try await store.collaborationRole(userID: user.id!, itemID: item.id!) else {
            throw BoxError.notFound()
        }
        if use != .see && !CollaborationRoles.editors.contains(role) { throw forbidden }
        return collaboration
    }

    private func render(_ collaboration: CollaborationRecord) async throws -> JSONValue {
        let creator = try await store.user(id: collaboration.createdBy)
        let grantee = try await store.user(id: collaboration.userID)
        var item: JSONValue = .null
        if let record = try await store.item(id: collaboration.itemID), let owner = try await store.user(id: record.ownerID) {
            item = ItemRenderer(store: store, viewer: owner).mini(record)
        }
        func user(_ record: UserRecord?) -> JSONValue {
            guard let record, case .object(let pairs) = UserRenderer.mini(record) else { return .null }
            return .object(pairs + [("is_active", .bool(record.status == "active"))])
        }
        return .object([
            ("type", .string("collaboration")), ("id", .string(String(collaboration.id!))),
            ("created_by", user(creator)), ("created_at", Timestamp.json(collaboration.createdAt)),
            ("modified_at", Timestamp.json(collaboration.modifiedAt)), ("expires_at", .null),
            ("status", .string("accepted")), ("accessible_by", user(grantee)), ("invite_email", .null),
            ("role", .string(collaboration.role)), ("acknowledged_at", Timestamp.json(collaboration.createdAt)),
            ("item", item),
        ])
    }
}
