import Foundation
import Hummingbird

/// `GET /2.0/folders/{id}/items`: offset paging (with `sort`/`direction`, see `ListingOrder`) or marker paging
/// (always by name), folders first then files. The viewer's own root also lists the items shared with them
/// (`Store.sharedRoots`), as Box's "All Files" does.
struct FolderListing: Sendable {
    let store: Store
    static let defaultLimit = 100
    static let maxLimit = 1000
    static let markerOrder: JSONValue = .array([.object([("by", .string("name")), ("direction", .string("ASC"))])])

    func list(_ folder: ItemRecord, request: Request, renderer: ItemRenderer) async throws -> JSONValue {
        let fields = FieldSelection(query: request.uri.queryParameters.get("fields"))
        let requestedLimit = try QueryParameters.int(request, "limit") ?? Self.defaultLimit
        guard requestedLimit >= 0 else { throw BoxError.invalidParameter("limit", "Invalid value '\(requestedLimit)'.") }
        let limit = min(requestedLimit, Self.maxLimit)
        let besides = try await store.listedBesideChildren(of: folder.id!, viewer: renderer.viewer)
        if QueryParameters.bool(request, "usemarker") {
            return try await markerPage(folder, besides: besides, marker: request.uri.queryParameters.get("marker"),
                                        limit: limit, fields: fields, renderer: renderer)
        }
        let order = try ListingOrder(request: request)
        let offset = try QueryParameters.int(request, "offset") ?? 0
        guard offset >= 0 else { throw BoxError.invalidParameter("offset", "Invalid value '\(offset)'.") }
        let page = try await store.children(of: folder.id!, besides: besides, offset: offset, limit: limit,
                                                order: order)
        let entries = try await renderer.entries(page.items, fields: fields)
        return .object([
            ("total_count", .int(page.total)), ("entries", .array(entries)), ("offset", .int(offset)),
            ("limit", .int(limit)), ("order", order.json),
        ])
    }

    private func markerPage(_ folder: ItemRecord, besides: [Int64], marker: String?, limit: Int,
                            fields: FieldSelection, renderer: ItemRenderer) async throws -> JSONValue {
        var cursor: ListingCursor?
        if let marker, !marker.isEmpty {
            guard let decoded = Self.decode(marker) else {
                throw BoxError.invalidParameter("marker", "Invalid value '\(marker)'.")
            }
            cursor = decoded
        }
        let rows = try await store.children(of: folder.id!, besides: besides, after: cursor, limit: limit)
        let pageItems = Array(rows.prefix(limit))
        let entries = try await renderer.entries(pageItems, fields: fields)
        let nextMarker: JSONValue
        if rows.count > limit, let last = pageItems.last {
            nextMarker = .string(Self.encode(ListingCursor(typeRank: last.typeRank, nameKey: last.nameKey, id: last.id!)))
        } else {
            nextMarker = .null
        }
        return .object([
            ("entries", .array(entries)), ("limit", .int(limit)), ("next_marker", nextMarker),
            ("order", Self.markerOrder),
        ])
    }

    /// Markers are opaque to clients: base64url of the last returned item's sort key.
    static func encode(_ cursor: ListingCursor) -> String {
        let text = "\(cursor.typeRank)\n\(cursor.id)\n\(cursor.nameKey)"
        return Data(text.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ marker: String) -> ListingCursor? {
        var base64 = marker.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8) else { return nil }
        let parts = text.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let rank = Int(parts[0]), let id = Int64(parts[1]) else { return nil }
        return ListingCursor(typeRank: rank, nameKey: String(parts[2]), id: id)
    }
}
