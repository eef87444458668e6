import Foundation
import Hummingbird

/// Token exchange (downscoping): a new access token limited to `scope` and, with `resource`, to that item and
/// what is under it. No refresh token.
struct TokenExchange: Sendable {
    let store: Store

    func exchange(form: [String: String], lifetime: Int64) async throws -> Response {
        guard let subjectToken = form["subject_token"],
              form["subject_token_type"] == TokenRoutes.accessTokenType
        else { throw OAuthError.invalidRequest("subject_token and subject_token_type are required") }
        guard let (user, subject) = try await store.authenticate(token: subjectToken, now: Timestamp.now()) else {
            throw OAuthError.grant("The subject token is invalid")
        }
        let scopes = (form["scope"] ?? "").split(separator: " ").map(String.init).filter { !$0.isEmpty }
        guard !scopes.isEmpty else { throw OAuthError.invalidRequest("scope is required") }
        if let held = subject.scopes?.split(separator: " ").map(String.init), !Set(scopes).isSubset(of: Set(held)) {
            throw OAuthError(status: .unauthorized, error: "invalid_scope",
                             description: "The requested scope exceeds the scope of the subject token")
        }
        var item: ItemRecord?
        var sharedLink: SharedLinkRecord?
        if let url = form["box_shared_link"] {
            guard form["resource"] == nil else {
                throw OAuthError.invalidRequest("Use either resource or box_shared_link, not both")
            }
            (sharedLink, item) = try await sharedItem(url: url, user: user)
            if let limit = subject.restrictedItemID, let id = item?.id, try await !store.isDescendant(id, of: limit) {
                throw OAuthError.grant("The shared item is outside the subject token's restriction")
            }
        } else if let resource = form["resource"] {
            item = try await resolve(resource: resource, user: user)
            if let limit = subject.restrictedItemID, let id = item?.id,
               try await !store.isDescendant(id, of: limit) {
                throw OAuthError.grant("The resource is outside the subject token's restriction")
            }
        }
        let issued = try await store.issueTokens(userID: user.id!, clientID: subject.clientID,
                                                 scopes: scopes.joined(separator: " "),
                                                 restrictedItemID: item?.id ?? subject.restrictedItemID,
                                                 sharedLinkToken: sharedLink?.token ?? subject.sharedLinkToken,
                                                 lifetime: lifetime, withRefresh: false)
        let renderer = ItemRenderer(store: store, viewer: user)
        let restricted: [JSONValue] = item.map { item in
            scopes.map { .object([("scope", .string($0)), ("object", renderer.mini(item))]) }
        } ?? []
        return jsonResponse(.object([
            ("access_token", .string(issued.accessToken)), ("expires_in", .int(issued.expiresIn)),
            ("token_type", .string("bearer")), ("restricted_to", .array(restricted)),
            ("issued_token_type", .string(TokenRoutes.accessTokenType)),
        ]))
    }

    /// The item of a shared link the user may reach; Box does not take password-protected links here.
    private func sharedItem(url: String, user: UserRecord) async throws -> (SharedLinkRecord, ItemRecord) {
        let access = SharedLinkAccess(store: store)
        do {
            let link = try await access.link(url: url)
            guard link.password == nil else {
                throw OAuthError.invalidRequest("Password-protected shared links cannot be used for token exchange")
            }
            return (link, try await access.reachableItem(of: link, user: user))
        } catch is BoxError {
            throw OAuthError.invalidRequest("The shared link was not found")
        }
    }

    /// `https://.../2.0/files/123` or `.../folders/456` → the item, if the user owns it.
    private func resolve(resource: String, user: UserRecord) async throws -> ItemRecord {
        let parts = resource.split(separator: "/").map(String.init)
        guard parts.count >= 2, let id = Int64(parts[parts.count - 1]),
              ["files", "folders"].contains(parts[parts.count - 2])
        else { throw OAuthError.invalidRequest("Invalid resource URL") }
        let realID = id == 0 && parts[parts.count - 2] == "folders" ? user.rootFolderID : id
        guard let realID, let item = try await store.item(id: realID), item.ownerID == user.id,
              item.itemStatus == "active", item.isFolder == (parts[parts.count - 2] == "folders")
        else { throw OAuthError.invalidRequest("The resource was not found") }
        return item
    }
}
