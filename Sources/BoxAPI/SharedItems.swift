extension BoxClient {
    /// The name of Box's shared-link header.
    public static let sharedLinkHeader = "BoxApi"

    /// A copy that reaches items through a shared link: every API call (never a pre-signed download
    /// URL) carries `BoxApi: shared_link=<url>[&shared_link_password=<password>]`, so items at or under
    /// the shared item can be read with any user's token. The original client is unchanged.
    ///
    /// The header holds the password; the client never logs headers, and errors name only method and path.
    public func withSharedLink(url: String, password: String? = nil) -> BoxClient {
        var value = "shared_link=" + url
        if let password { value += "&shared_link_password=" + password }
        return withHeader(Self.sharedLinkHeader, value)
    }

    /// `GET /2.0/shared_items`: the file or folder of this client's shared link (see `withSharedLink`).
    /// A wrong or missing password is a 403 `incorrect_shared_item_password`; an unknown or unshared
    /// link a 404.
    public func sharedItem() async throws -> BoxItem {
        let url = apiURL("shared_items", query: [("fields", BoxItem.fields)])
        return try await executeJSON(.get(url), as: ItemDTO.self).item
    }
}

extension BoxAPIError {
    /// A shared link's password was wrong or missing.
    public var isIncorrectSharedLinkPassword: Bool { code == "incorrect_shared_item_password" }
}
