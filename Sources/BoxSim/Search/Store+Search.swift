import Foundation
import GRDB

/// What `GET /2.0/search` looks for (already parsed and access-checked by `SearchRoutes`).
struct SearchFilter: Sendable {
    enum Trash: String, Sendable {
        case nonTrashedOnly = "non_trashed_only", trashedOnly = "trashed_only", allItems = "all_items"
    }

    var query: SearchQuery
    /// `name`, `description`, `file_content`, `comments`, `tags` (boxsim has no comments or tags: they never match).
    var contentTypes: Set<String>
    var type: String?
    /// Lower case, without dots.
    var fileExtensions: Set<String>?
    /// Folders whose contents (at any depth) are searched; the user's root, or `ancestor_folder_ids`.
    var folderIDs: [Int64]
    var trash: Trash = .nonTrashedOnly
    /// Whose trash `trashed_only`/`all_items` look in.
    var userID: Int64
    /// `size_range` (files only: a folder's size is not computed here), `created_at_range`, `updated_at_range`:
    /// inclusive bounds, nil where open.
    var sizeRange: (Int64?, Int64?)?
    var createdRange: (Int64?, Int64?)?
    var updatedRange: (Int64?, Int64?)?
    var ownerIDs: Set<Int64>?
    /// nil: by relevance (name matches before description matches before content matches, then newest first).
    var modifiedAtDescending: Bool?

    static let allContentTypes: Set<String> = ["name", "description", "file_content", "comments", "tags"]
    /// Text content is searched in the first MiB of a file.
    static let contentPrefix = 1 << 20
}

extension Store {
    /// Items matching `filter`, a page of them and their number. Runs on the store's reader (file contents are
    /// read there too, off the cooperative pool).
    func search(_ filter: SearchFilter, offset: Int, limit: Int) async throws -> (items: [ItemRecord], total: Int) {
        try await database.read { db in
            var candidates: [ItemRecord] = []
            if filter.trash != .trashedOnly, !filter.folderIDs.isEmpty {
                let marks = filter.folderIDs.map { _ in "?" }.joined(separator: ",")
                candidates += try ItemRecord.fetchAll(db, sql: """
                    WITH RECURSIVE tree(id) AS (
                        SELECT id FROM item WHERE parent_id IN (\(marks)) AND item_status = 'active'
                        UNION ALL SELECT item.id FROM item JOIN tree ON item.parent_id = tree.id
                            WHERE item.item_status = 'active')
                    SELECT * FROM item WHERE id IN tree
                    """, arguments: StatementArguments(filter.folderIDs))
            }
            if filter.trash != .nonTrashedOnly {
                candidates += try ItemRecord.filter(sql: "owner_id = ? AND item_status = 'trashed'",
                                                    arguments: [filter.userID]).fetchAll(db)
            }
            var scored: [(item: ItemRecord, score: Int)] = []
            for item in candidates where Self.passes(item, filter) {
                if let score = self.relevance(of: item, filter, db) { scored.append((item, score)) }
            }
            scored.sort { left, right in
                if let descending = filter.modifiedAtDescending, left.item.modifiedAt != right.item.modifiedAt {
                    return descending ? left.item.modifiedAt > right.item.modifiedAt
                        : left.item.modifiedAt < right.item.modifiedAt
                }
                if filter.modifiedAtDescending == nil, left.score != right.score { return left.score > right.score }
                if left.item.modifiedAt != right.item.modifiedAt { return left.item.modifiedAt > right.item.modifiedAt }
                return left.item.id! < right.item.id!
            }
            return (Array(scored.dropFirst(offset).prefix(limit).map(\.item)), scored.count)
        }
    }

    private static func passes(_ item: ItemRecord, _ filter: SearchFilter) -> Bool {
        if item.isRoot { return false }
        if let type = filter.type, item.type != type { return false }
        if let owners = filter.ownerIDs, !owners.contains(item.ownerID) { return false }
        if let range = filter.sizeRange, item.isFolder || !within(item.size, range) { return false }
        if let range = filter.createdRange, !within(item.createdAt, range) { return false }
        if let range = filter.updatedRange, !within(item.modifiedAt, range) { return false }
        if let extensions = filter.fileExtensions {
            guard !item.isFolder, let dot = item.name.lastIndex(of: "."),
                  extensions.contains(item.name[item.name.index(after: dot)...].lowercased()) else { return false }
        }
        return true
    }

    private static func within(_ value: Int64, _ range: (Int64?, Int64?)) -> Bool {
        value >= (range.0 ?? .min) && value <= (range.1 ?? .max)
    }

    /// 3 when the name alone matches, 2 the description, 1 the content or the fields together; nil: no match.
    private func relevance(of item: ItemRecord, _ filter: SearchFilter, _ db: Database) -> Int? {
        let types = filter.contentTypes
        let name = types.contains("name") ? SearchQuery.words(item.name) : []
        if !name.isEmpty, filter.query.matches(name) { return 3 }
        let description = types.contains("description") ? SearchQuery.words(item.description) : []
        if !description.isEmpty, filter.query.matches(description) { return 2 }
        var content: [String] = []
        if types.contains("file_content"), !item.isFolder, let sha1 = item.sha1,
           let blob = try? Self.blobLocation(db, sha1: sha1, blobs: blobs),
           let handle = FileHandle(forReadingAtPath: blob.path) {
            try? handle.seek(toOffset: UInt64(blob.offset))
            let length = Int(min(Int64(SearchFilter.contentPrefix), item.size))
            content = SearchQuery.words(String(decoding: handle.readData(ofLength: length), as: UTF8.self))
            try? handle.close()
        }
        // A separator no word can equal keeps phrases from spanning two fields.
        return filter.query.matches(name + [" "] + description + [" "] + content) ? 1 : nil
    }
}
