import HTTPTypes
import Hummingbird

/// The `BoxApi: shared_link=<url>[&shared_link_password=<password>]` header. Values are taken as sent
/// (Box's SDKs do not percent-encode them); everything after `&shared_link_password=` is the password.
struct BoxApiHeader: Sendable {
    static let name = HTTPField.Name("boxapi")!
    var url: String
    var password: String?

    init?(_ value: String) {
        let text = value.trimmingCharacters(in: .whitespaces)
        guard text.hasPrefix("shared_link=") else { return nil }
        let rest = text.dropFirst("shared_link=".count)
        if let range = rest.range(of: "&shared_link_password=") {
            url = String(rest[..<range.lowerBound])
            password = String(rest[range.upperBound...])
        } else {
            url = String(rest)
        }
        guard !url.isEmpty else { return nil }
    }
}

/// What a request through a shared link may do: read metadata and list, or download.
enum SharedLinkUse: Sendable {
    case read, download
}

/// Resolves shared links for a requesting user with Box's answers: unknown or unshared → 404 `not_found`,
/// wrong or missing password → 403 `incorrect_shared_item_password`, access level not met → 403.
struct SharedLinkAccess: Sendable {
    let store: Store

    /// The link named by a shared-link URL: any host, path `/s/<token>` or `/v/<vanity name>`.
    func link(url: String) async throws -> SharedLinkRecord {
        var path = Substring(url)
        if let scheme = path.range(of: "://") { path = path[scheme.upperBound...].drop { $0 != "/" } }
        if let query = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<query] }
        let parts = path.split(separator: "/")
        guard parts.count >= 2, ["s", "v"].contains(parts[parts.count - 2]),
              let link = try await store.sharedLink(token: String(parts[parts.count - 1]),
                                                    vanity: parts[parts.count - 2] == "v")
        else { throw BoxError.notFound() }
        return link
    }

    /// The shared item of `header` for `user`, after the access-level and password checks.
    func sharedItem(_ header: BoxApiHeader, user: UserRecord) async throws -> (SharedLinkRecord, ItemRecord) {
        let link = try await link(url: header.url)
        let item = try await reachableItem(of: link, user: user)
        if let password = link.password, header.password != password {
            throw BoxError(status: .forbidden, code: "incorrect_shared_item_password",
                           message: "The shared link password is incorrect")
        }
        return (link, item)
    }

    /// The link's item if it is active and its access level admits `user` (`collaborators`: the owner and
    /// collaborators on the item or a folder above it; `company`: users of the owner's enterprise).
    func reachableItem(of link: SharedLinkRecord, user: UserRecord) async throws -> ItemRecord {
        guard let item = try await store.item(id: link.itemID), item.itemStatus == "active",
              let owner = try await store.user(id: item.ownerID)
        else { throw BoxError.notFound() }
        var admitted = switch link.access {
        case "open": true
        case "company": owner.enterpriseID != nil && owner.enterpriseID == user.enterpriseID
        default: owner.id == user.id
        }
        if !admitted, link.access == "collaborators" {
            admitted = try await store.collaborationRole(userID: user.id!, itemID: item.id!) != nil
        }
        guard admitted else {
            throw BoxError(status: .forbidden, code: "access_denied_insufficient_permissions",
                           message: "Access denied - insufficient permission")
        }
        return item
    }

    /// For item routes: the item `{id}` reached through the request's `BoxApi` header (or the shared link a
    /// token was exchanged for), when the user does not own it. nil: no shared link in play, or the user's own
    /// item (the ordinary lookup answers then).
    func item(_ idText: String?, isFolder: Bool, request: Request, context: BoxContext, use: SharedLinkUse)
        async throws -> ItemRecord? {
        let user = try context.requireUser()
        let id = try ItemLookup.parseID(idText)
        guard id != 0, let item = try await store.item(id: id), item.ownerID != user.id else { return nil }
        let link: SharedLinkRecord
        if let value = request.headers[BoxApiHeader.name] {
            guard let header = BoxApiHeader(value) else {
                throw BoxError.invalidParameter("boxapi", "Invalid value for the BoxApi header")
            }
            link = try await sharedItem(header, user: user).0
        } else if let token = context.token?.sharedLinkToken,
                  let exchanged = try await store.sharedLink(token: token, vanity: false) {
            _ = try await reachableItem(of: exchanged, user: user)
            link = exchanged
        } else {
            return nil
        }
        let notFound = BoxError.itemNotFound((isFolder ? "d_" : "f_") + String(id))
        guard item.isFolder == isFolder, !item.isRoot, try await store.isDescendant(id, of: link.itemID) else {
            throw notFound
        }
        if item.itemStatus == "trashed" { throw BoxError.trashed() }
        guard item.itemStatus == "active" else { throw notFound }
        if use == .download {
            guard link.canDownload else {
                throw BoxError(status: .forbidden, code: "access_denied_insufficient_permissions",
                               message: "Access denied - insufficient permission")
            }
            try await store.countSharedDownload(itemID: link.itemID)
        }
        return item
    }
}
