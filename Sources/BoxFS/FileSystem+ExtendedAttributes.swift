import BoxAPI
import Foundation

/// Extended attributes: the read-only Box facts of `BoxAttribute`, answered from the cached tree under its
/// locks (no I/O, no wait), so the adapter serves them on the session's thread without a task.
extension FileSystem {
    /// The value of attribute `name` of `inode`, as UTF-8 bytes: ENODATA when the item has no such
    /// attribute, ENOTSUP for a namespace boxfs does not support (see `AttributeNamespace.unsupported`).
    public func extendedAttribute(_ inode: UInt64, name: String) throws(FSError) -> [UInt8] {
        switch AttributeNamespace(name) {
        case .unsupported:
            throw FSError(.notSupported, "\(name): boxfs supports only user.box.* attributes")
        case .user, .box(nil):
            throw FSError(.noAttribute, "\(name): no such attribute")
        case .box(let attribute?):
            guard let value = boxAttributes(inode, only: attribute).first?.value else {
                throw FSError(.noAttribute, "\(name): not set for inode \(inode)")
            }
            return Array(value.utf8)
        }
    }

    /// The names of the attributes `inode` has, in `BoxAttribute` order.
    public func extendedAttributeNames(_ inode: UInt64) -> [String] {
        boxAttributes(inode).map(\.attribute.name)
    }

    /// The Box facts `inode` has now (all of them, or only `only`). Items that are not on Box (a file not
    /// uploaded yet, a deleted file still open, the mount's own control files) have none.
    func boxAttributes(_ inode: UInt64, only: BoxAttribute? = nil) -> [(attribute: BoxAttribute, value: String)] {
        guard let node = tree.withLock({ $0.node(inode) }), case .box(let id) = node.id, Self.isBoxID(id) else { return [] }
        let item = node.item
        let pending = locals.withLock { $0.file(itemID: item.id)?.entryID != nil }
        let now = Date(), base = options.webAppBase
        return (only.map { [$0] } ?? BoxAttribute.allCases).compactMap { attribute in
            if pending, attribute.describesContent { return nil }
            if attribute == .pinned { return pinnedAttribute(ofItem: item.id).map { (attribute, $0) } }
            return attribute.value(of: item, webAppBase: base, now: now).map { (attribute, $0) }
        }
    }

    /// Box ids are decimal numbers; the tree's made-up ids (local files, detached nodes, a single file's
    /// folder) are not.
    static func isBoxID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }
}
