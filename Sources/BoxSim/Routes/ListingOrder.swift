import Hummingbird

/// `sort` and `direction` of a folder listing. Box always sorts by type first (folders, then files, then web
/// links); `sort` is the second key (`id`, `name`, `date` = modified_at, `size` = a folder's total size) and
/// `direction` applies to that key only. Ties go by name, then id, in the same direction.
struct ListingOrder: Sendable, Equatable {
    enum Key: String, Sendable {
        case id, name, date, size
    }

    var key: Key = .name
    var descending = false

    static let standard = ListingOrder()

    init() {}

    /// From the query; absent values keep Box's default (name, ascending); others are 400.
    init(request: Request) throws {
        let query = request.uri.queryParameters
        if let text = query.get("sort"), !text.isEmpty {
            guard let key = Key(rawValue: text.lowercased()) else {
                throw BoxError.invalidParameter("sort", "Invalid value '\(text)'. Expected id, name, date or size")
            }
            self.key = key
        }
        if let text = query.get("direction"), !text.isEmpty {
            switch text.uppercased() {
            case "ASC": descending = false
            case "DESC": descending = true
            default: throw BoxError.invalidParameter("direction", "Invalid value '\(text)'. Expected ASC or DESC")
            }
        }
    }

    /// The `order` member of an offset-paged listing.
    var json: JSONValue {
        .array([
            .object([("by", .string("type")), ("direction", .string("ASC"))]),
            .object([("by", .string(key.rawValue)), ("direction", .string(descending ? "DESC" : "ASC"))]),
        ])
    }

    /// SQL for the keys after type (nil for `size`, which is sorted in Swift: folder sizes are computed).
    var sqlKeys: String? {
        let direction = descending ? " DESC" : ""
        switch key {
        case .id: return "id" + direction
        case .name: return "name_key\(direction), id\(direction)"
        case .date: return "modified_at\(direction), name_key\(direction), id\(direction)"
        case .size: return nil
        }
    }
}
