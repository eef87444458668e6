import Foundation
import Hummingbird

/// `GET /2.0/search`: `query` (see `SearchQuery`) over names, descriptions and the text of files, within the
/// folders the user can see (or `ancestor_folder_ids`, each checked: 404 otherwise), with `type`,
/// `file_extensions`, `content_types`, `trash_content`, `size_range`, `created_at_range`, `updated_at_range`,
/// `owner_user_ids`, `sort` (`relevance`, `modified_at`) and `direction`;
/// offset paging (`limit` default 30, at most 200; offsets past 10,000 refused) and `fields`. The answer is
/// Box's `{total_count, entries, limit, offset, type: "search_results_items"}`.
struct SearchRoutes: Sendable {
    let store: Store
    static let defaultLimit = 30
    static let maxLimit = 200

    func register(on group: RouterGroup<BoxContext>) {
        group.get("search") { request, context in
            let user = try context.requireUser()
            let filter = try await filter(request, context: context, user: user)
            let (offset, limit) = try VersionRoutes.paging(request, defaultLimit: Self.defaultLimit, maxLimit: Self.maxLimit)
            let page = try await store.search(filter, offset: offset, limit: limit)
            let fields = FieldSelection(query: request.uri.queryParameters.get("fields"))
            let renderer = ItemRenderer(store: store, viewer: user)
            var entries: [JSONValue] = []
            for item in page.items { entries.append(try await renderer.render(item, fields: fields)) }
            return jsonResponse(.object([
                ("total_count", .int(page.total)), ("entries", .array(entries)), ("limit", .int(limit)),
                ("offset", .int(offset)), ("type", .string("search_results_items")),
            ]))
        }
    }

    private func filter(_ request: Request, context: BoxContext, user: UserRecord) async throws -> SearchFilter {
        let query = request.uri.queryParameters
        guard let text = query.get("query"), let parsed = SearchQuery(text) else {
            throw BoxError.invalidParameter("query", "'query' is required (metadata filters are not supported)")
        }
        let contentTypes = try Self.list(query.get("content_types"), "content_types", allowed: SearchFilter.allContentTypes)
            .map { Set($0) }
        let type = query.get("type").flatMap { $0.isEmpty ? nil : $0 }
        if let type, !["file", "folder", "web_link"].contains(type) {
            throw BoxError.invalidParameter("type", "Invalid value '\(type)'. Expected file, folder or web_link")
        }
        let extensions = try Self.list(query.get("file_extensions"), "file_extensions", allowed: nil)
            .map { Set($0.map { String($0.drop { $0 == "." }).lowercased() }) }
        let lookup = ItemLookup(store: store)
        var folders: [Int64] = []
        for id in try Self.list(query.get("ancestor_folder_ids"), "ancestor_folder_ids", allowed: nil) ?? [] {
            folders.append(try await lookup.folder(id, context: context, scopes: ItemScopes.read).id!)
        }
        if folders.isEmpty {
            folders = try await searchableFolders(user: user, token: context.token)
        }
        var filter = SearchFilter(query: parsed, contentTypes: contentTypes ?? SearchFilter.allContentTypes, type: type,
                                  fileExtensions: extensions, folderIDs: folders, userID: user.id!)
        filter.sizeRange = try Self.range(query.get("size_range"), "size_range") { Int64($0) }
        filter.createdRange = try Self.range(query.get("created_at_range"), "created_at_range", Timestamp.parse)
        filter.updatedRange = try Self.range(query.get("updated_at_range"), "updated_at_range", Timestamp.parse)
        if let owners = try Self.list(query.get("owner_user_ids"), "owner_user_ids", allowed: nil) {
            filter.ownerIDs = Set(try owners.map { text in
                guard let id = Int64(text) else { throw BoxError.invalidParameter("owner_user_ids", "Invalid value '\(text)'.") }
                return id
            })
        }
        if let trash = query.get("trash_content"), !trash.isEmpty {
            guard let value = SearchFilter.Trash(rawValue: trash) else {
                throw BoxError.invalidParameter("trash_content", "Invalid value '\(trash)'.")
            }
            filter.trash = value
        }
        switch query.get("sort") ?? "relevance" {
        case "relevance", "": break
        case "modified_at": filter.modifiedAtDescending = (query.get("direction") ?? "DESC").uppercased() != "ASC"
        case let other: throw BoxError.invalidParameter("sort", "Invalid value '\(other)'. Expected relevance or modified_at")
        }
        if let direction = query.get("direction"), !["ASC", "DESC"].contains(direction.uppercased()) {
            throw BoxError.invalidParameter("direction", "Invalid value '\(direction)'. Expected ASC or DESC")
        }
        return filter
    }

    /// The folders a search without `ancestor_folder_ids` covers: the user's root and the folders shared with them
    /// (a downscoped token: its item).
    private func searchableFolders(user: UserRecord, token: TokenRecord?) async throws -> [Int64] {
        if let limit = token?.restrictedItemID { return [limit] }
        let shared = try await store.collaboratedFolderIDs(userID: user.id!)
        return [user.rootFolderID].compactMap { $0 } + shared
    }

    /// A `lower,upper` range parameter (either side may be empty: open); nil when absent, 400 when malformed.
    private static func range(_ text: String?, _ name: String, _ parse: (String) -> Int64?) throws -> (Int64?, Int64?)? {
        guard let text, !text.isEmpty else { return nil }
        let sides = text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard sides.count <= 2 else { throw BoxError.invalidParameter(name, "Invalid value '\(text)'.") }
        let bounds = try sides.map { side -> Int64? in
            guard !side.isEmpty else { return nil }
            guard let value = parse(side) else { throw BoxError.invalidParameter(name, "Invalid value '\(text)'.") }
            return value
        }
        return (bounds[0], bounds.count > 1 ? bounds[1] : nil)
    }

    /// A comma-separated list parameter (nil when absent); values outside `allowed` are 400.
    private static func list(_ text: String?, _ name: String, allowed: Set<String>?) throws -> [String]? {
        guard let text, !text.isEmpty else { return nil }
        let values = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if let allowed, let bad = values.first(where: { !allowed.contains($0) }) {
            throw BoxError.invalidParameter(name, "Invalid value '\(bad)'.")
        }
        return values
    }
}
