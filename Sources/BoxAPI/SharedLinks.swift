import Foundation

/// An item's shared link as Box renders it (`shared_link`; the password itself is never shown).
public struct SharedLink: Sendable, Equatable {
    public var url: String
    /// A direct download URL (files only; nil for folders).
    public var downloadURL: String?
    public var vanityURL: String?
    /// `open`, `company` or `collaborators`.
    public var access: String?
    public var effectiveAccess: String?
    public var isPasswordEnabled: Bool
    public var unsharedAt: Date?
    public var canDownload: Bool?
    public var downloadCount: Int64?

    public init(url: String, downloadURL: String? = nil, vanityURL: String? = nil, access: String? = nil,
                effectiveAccess: String? = nil, isPasswordEnabled: Bool = false, unsharedAt: Date? = nil,
                canDownload: Bool? = nil, downloadCount: Int64? = nil) {
        self.url = url
        self.downloadURL = downloadURL
        self.vanityURL = vanityURL
        self.access = access
        self.effectiveAccess = effectiveAccess
        self.isPasswordEnabled = isPasswordEnabled
        self.unsharedAt = unsharedAt
        self.canDownload = canDownload
        self.downloadCount = downloadCount
    }
}

/// What to set on a shared link; nil members keep the link's current value (or Box's default for a new one).
public struct SharedLinkSettings: Sendable, Equatable {
    public var access: String?
    /// A new password (≥ 8 characters with a digit, upper-case letter or special character; `open` links only).
    public var password: String?
    public var unsharedAt: Date?
    public var canDownload: Bool?

    public init(access: String? = nil, password: String? = nil, unsharedAt: Date? = nil, canDownload: Bool? = nil) {
        self.access = access
        self.password = password
        self.unsharedAt = unsharedAt
        self.canDownload = canDownload
    }

    var json: [String: Any] {
        var link: [String: Any] = [:]
        if let access { link["access"] = access }
        if let password { link["password"] = password }
        if let unsharedAt { link["unshared_at"] = BoxDate.format(unsharedAt) }
        if let canDownload { link["permissions"] = ["can_download": canDownload] }
        return link
    }
}

extension BoxClient {
    /// `PUT /2.0/files/{id}` or `/2.0/folders/{id}` with `{"shared_link": {...}}` and `fields=shared_link`:
    /// creates the item's one shared link or updates it (its URL is kept). The body holds the password; like
    /// every request, it is named in logs and errors by method and path only. Setting the same values again
    /// changes nothing, so the call is repeated after a failure like any idempotent one.
    public func setSharedLink(_ kind: BoxItem.Kind, id: String, _ settings: SharedLinkSettings) async throws
        -> SharedLink
    {
        guard let link = try await putSharedLink(kind, id: id, settings.json) else {
            throw BoxAPIError(kind: .decoding("no shared_link in the answer"), status: 200,
                              request: "PUT /2.0/\(Self.collection(kind))/\(id)")
        }
        return link
    }

    /// The same PUT with `{"shared_link": null}`: removes the item's shared link (its URL stops working).
    public func removeSharedLink(_ kind: BoxItem.Kind, id: String) async throws {
        _ = try await putSharedLink(kind, id: id, NSNull())
    }

    private func putSharedLink(_ kind: BoxItem.Kind, id: String, _ link: Any) async throws -> SharedLink? {
        let url = apiURL(Self.collection(kind), id, query: [("fields", "shared_link")])
        var request = BoxRequest.json(.put, url, ["shared_link": link])
        request.isIdempotent = true
        return try await executeJSON(request, as: SharedLinkHolderDTO.self).link
    }
}

/// `{"type", "id", "shared_link": {...} | null}`: an item answered with `fields=shared_link`.
struct SharedLinkHolderDTO: Decodable {
    var link: SharedLink?

    private enum CodingKeys: String, CodingKey {
        case sharedLink = "shared_link"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        link = try c.decodeIfPresent(SharedLinkObjectDTO.self, forKey: .sharedLink)?.link
    }
}

/// Box's `shared_link` object.
struct SharedLinkObjectDTO: Decodable {
    var link: SharedLink

    private enum CodingKeys: String, CodingKey {
        case url, access, permissions
        case downloadURL = "download_url"
        case vanityURL = "vanity_url"
        case effectiveAccess = "effective_access"
        case isPasswordEnabled = "is_password_enabled"
        case unsharedAt = "unshared_at"
        case downloadCount = "download_count"
    }

    private struct Permissions: Decodable {
        var canDownload: Bool?
        private enum CodingKeys: String, CodingKey { case canDownload = "can_download" }
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        link = SharedLink(
            url: try c.decode(String.self, forKey: .url),
            downloadURL: try c.decodeIfPresent(String.self, forKey: .downloadURL),
            vanityURL: try c.decodeIfPresent(String.self, forKey: .vanityURL),
            access: try c.decodeIfPresent(String.self, forKey: .access),
            effectiveAccess: try c.decodeIfPresent(String.self, forKey: .effectiveAccess),
            isPasswordEnabled: try c.decodeIfPresent(Bool.self, forKey: .isPasswordEnabled) ?? false,
            unsharedAt: try c.decodeDateIfPresent(forKey: .unsharedAt),
            canDownload: try c.decodeIfPresent(Permissions.self, forKey: .permissions)?.canDownload,
            downloadCount: try c.decodeLenientInt64IfPresent(forKey: .downloadCount))
    }
}
