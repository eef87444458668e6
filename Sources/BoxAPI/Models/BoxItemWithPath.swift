import Foundation

/// An item with where Box says it is: a search result or an item in the trash.
public struct BoxItemWithPath: Sendable, Equatable {
    public var item: BoxItem
    /// The folders above the item, from the account's root ("All Files", id "0") down to its parent.
    /// For a trashed item Box gives only its Trash folder here: its original place is `item.parentID`.
    public var pathCollection: [BoxPathEntry]
    /// `active`, `trashed` or `deleted`, when sent.
    public var itemStatus: String?
    /// When the item went to the trash (nil for an active item).
    public var trashedAt: Date?
    public var modifiedBy: BoxUserReference?

    public init(
        item: BoxItem, pathCollection: [BoxPathEntry] = [], itemStatus: String? = nil, trashedAt: Date? = nil,
        modifiedBy: BoxUserReference? = nil
    ) {
        self.item = item
        self.pathCollection = pathCollection
        self.itemStatus = itemStatus
        self.trashedAt = trashedAt
        self.modifiedBy = modifiedBy
    }

    /// `BoxItem.fields` and what this type adds.
    public static let fields = BoxItem.fields + ",path_collection,item_status,trashed_at,modified_by"
}

/// One folder of a `path_collection`.
public struct BoxPathEntry: Sendable, Equatable {
    public var id: String
    public var name: String

    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}
