import Foundation

/// What `search` looks for: `GET /2.0/search`'s parameters that a filesystem needs.
public struct BoxSearchQuery: Sendable, Equatable {
    /// Where Box looks for `text`.
    public enum ContentType: String, Sendable, CaseIterable {
        case name, description, fileContent = "file_content", comments, tags
    }

    /// The words (Box's syntax: `"exact phrase"`, `AND`, `OR`, `NOT`).
    public var text: String
    /// Only items under these folders (none: everything the user can see).
    public var ancestorFolderIDs: [String]
    /// Only files with these extensions (without the dot).
    public var fileExtensions: [String]
    /// Only files, only folders or only web links.
    public var type: BoxItem.Kind?
    /// Where to look (none: Box's default, everywhere).
    public var contentTypes: [ContentType]

    public init(
        _ text: String, ancestorFolderIDs: [String] = [], fileExtensions: [String] = [], type: BoxItem.Kind? = nil,
        contentTypes: [ContentType] = []
    ) {
        self.text = text
        self.ancestorFolderIDs = ancestorFolderIDs
        self.fileExtensions = fileExtensions
        self.type = type
        self.contentTypes = contentTypes
    }

    /// The query parameters, `fields` included.
    var parameters: [(String, String)] {
        var query = [("query", text), ("fields", BoxItemWithPath.fields)]
        if !ancestorFolderIDs.isEmpty { query.append(("ancestor_folder_ids", ancestorFolderIDs.joined(separator: ","))) }
        if !fileExtensions.isEmpty {
            query.append(("file_extensions", fileExtensions.map { String($0.drop { $0 == "." }) }.joined(separator: ",")))
        }
        if let type { query.append(("type", type.rawValue)) }
        if !contentTypes.isEmpty { query.append(("content_types", contentTypes.map(\.rawValue).joined(separator: ","))) }
        return query
    }
}

extension BoxClient {
    /// The most results Box returns per search page.
    static let searchPageLimit = 200

    /// The results of a Box search, most relevant first, each with its `path_collection`:
    /// `GET /2.0/search` with offset paging of 200, at most `maxResults` (Box refuses offsets past 10,000).
    /// Box's index lags behind changes by seconds to minutes; a just-uploaded file may be missing.
    public func search(_ query: BoxSearchQuery, maxResults: Int = 1000) async throws -> [BoxItemWithPath] {
        guard maxResults > 0 else { return [] }
        return try await allPages(
            ["search"], query: query.parameters, limit: min(Self.searchPageLimit, maxResults), markerPaged: false,
            maxEntries: maxResults, as: ItemWithPathDTO.self
        ).map(\.value)
    }
}
