import Crypto
import Foundation

/// The whole of a fake Box account as one value: its items, the ids and versions it hands out, and a virtual
/// clock that moves one second per change (so dates are the same in every replay of a seed).
///
/// Box's rules that the filesystem core relies on are kept: names are unique in a folder regardless of case
/// (409 `item_name_in_use` naming the holder), `If-Match` is checked (412), a folder with items is deleted only
/// recursively, every content upload makes a new file version with a new etag and SHA-1.
public struct FakeBoxState: Sendable {
    public struct Item: Sendable, Equatable {
        public enum Kind: String, Sendable { case file, folder }
        public var id: String
        public var kind: Kind
        public var name: String
        public var parentID: String?
        public var content: [UInt8] = [] {
            didSet { sha1 = Self.digest(content) }
        }
        /// Box's SHA-1 of `content`, kept with it (listings show it for every file).
        public private(set) var sha1 = Self.digest([])
        /// The content of each earlier version, by version id (Box serves them with `?version=`).
        public var earlierVersions: [String: [UInt8]] = [:]
        public var versionID: String = ""
        /// Moves on every change of the item (name, place, content), as Box's `etag` does.
        public var etag: Int = 0
        public var created: Int
        public var modified: Int
        public var contentModified: Int

        static func digest(_ bytes: [UInt8]) -> String {
            let hex = Array("0123456789abcdef".utf8)
            var text: [UInt8] = []
            for byte in Insecure.SHA1.hash(data: bytes) { text += [hex[Int(byte >> 4)], hex[Int(byte & 15)]] }
            return String(decoding: text, as: UTF8.self)
        }
    }

    public static let rootID = "0"

    public private(set) var items: [String: Item]
    private var nextID = 1000
    /// Seconds since the fake's epoch; every change moves it on by one.
    public private(set) var clock = 0
    /// When the fake's clock started, as seconds since 1970: the time it was made, to the second. Box's dates are
    /// close to the client's clock, and the client relies on that (a folder its lost attempt made is one created
    /// since the call began).
    public let epoch: Double

    public init(epoch: Double = Date().timeIntervalSince1970.rounded(.down)) {
        self.epoch = epoch
        items = [Self.rootID: Item(id: Self.rootID, kind: .folder, name: "All Files", parentID: nil,
                                   created: 0, modified: 0, contentModified: 0)]
    }

    mutating func tick() -> Int {
        clock += 1
        return clock
    }

    mutating func newID() -> String {
        nextID += 1
        return String(nextID)
    }

    public func children(of folderID: String) -> [Item] {
        items.values.filter { $0.parentID == folderID }.sorted { ($0.kind.rawValue, $0.name, $0.id) < ($1.kind.rawValue, $1.name, $1.id) }
    }

    /// The item holding `name` in `folderID`, compared as Box compares names (case-insensitively).
    public func holder(of name: String, in folderID: String) -> Item? {
        let folded = name.lowercased()
        return items.values.first { $0.parentID == folderID && $0.name.lowercased() == folded }
    }

    /// Every item under `folderID` as path → item (folders end in "/"), the way the model tier compares trees.
    public func tree(under folderID: String = rootID) -> [String: Item] {
        var result: [String: Item] = [:]
        var pending = [(folderID, "")]
        while let (id, prefix) = pending.popLast() {
            for child in children(of: id) {
                let path = prefix + child.name
                if child.kind == .folder {
                    result[path + "/"] = child
                    pending.append((child.id, path + "/"))
                } else {
                    result[path] = child
                }
            }
        }
        return result
    }

    func isInside(_ id: String, _ folderID: String) -> Bool {
        var current: String? = id
        while let here = current {
            if here == folderID { return true }
            current = items[here]?.parentID
        }
        return false
    }

    // MARK: Changes, each as Box makes it

    public mutating func createFolder(name: String, parentID: String) throws(FakeBoxError) -> Item {
        try checkNewName(name, in: parentID)
        let now = tick()
        let item = Item(id: newID(), kind: .folder, name: name, parentID: parentID, created: now, modified: now,
                        contentModified: now)
        items[item.id] = item
        touch(parentID, at: now)
        return item
    }

    public mutating func uploadFile(name: String, parentID: String, content: [UInt8]) throws(FakeBoxError) -> Item {
        try checkNewName(name, in: parentID)
        let now = tick()
        var item = Item(id: newID(), kind: .file, name: name, parentID: parentID, created: now, modified: now,
                        contentModified: now)
        item.content = content
        item.versionID = newID()
        items[item.id] = item
        touch(parentID, at: now)
        return item
    }

    public mutating func uploadVersion(fileID: String, content: [UInt8], name: String?, ifMatch: String?)
        throws(FakeBoxError) -> Item
    {
        guard var item = items[fileID], item.kind == .file else { throw .notFound }
        if let ifMatch, ifMatch != String(item.etag) { throw .preconditionFailed }
        if let name, name != item.name, let parentID = item.parentID { try checkNewName(name, in: parentID, except: fileID) }
        let now = tick()
        item.earlierVersions[item.versionID] = item.content
        item.content = content
        item.versionID = newID()
        item.etag += 1
        item.modified = now
        item.contentModified = now
        if let name { item.name = name }
        items[fileID] = item
        return item
    }

    /// Rename and/or move (`PUT /files/{id}`, `PUT /folders/{id}`).
    public mutating func update(id: String, name: String?, parentID: String?, ifMatch: String?) throws(FakeBoxError) -> Item {
        guard var item = items[id], id != Self.rootID else { throw .notFound }
        if let ifMatch, ifMatch != String(item.etag) { throw .preconditionFailed }
        let target = parentID ?? item.parentID ?? Self.rootID
        guard let folder = items[target], folder.kind == .folder else { throw .notFound }
        if item.kind == .folder, isInside(target, id) { throw .badRequest("bad_request", "a folder cannot move into itself") }
        try checkNewName(name ?? item.name, in: target, except: id)
        let now = tick()
        if let oldParent = item.parentID { touch(oldParent, at: now) }
        item.name = name ?? item.name
        item.parentID = target
        item.etag += 1
        item.modified = now
        items[id] = item
        touch(target, at: now)
        return item
    }

    public mutating func delete(id: String, kind: Item.Kind, recursive: Bool, ifMatch: String?) throws(FakeBoxError) {
        guard let item = items[id], item.kind == kind, id != Self.rootID else { throw .notFound }
        if let ifMatch, ifMatch != String(item.etag) { throw .preconditionFailed }
        if kind == .folder, !recursive, !children(of: id).isEmpty {
            throw .badRequest("folder_not_empty", "the folder is not empty")
        }
        let gone = items.keys.filter { isInside($0, id) }
        for key in gone { items[key] = nil }
        if let parent = item.parentID { touch(parent, at: tick()) }
    }

    private func checkNewName(_ name: String, in folderID: String, except: String? = nil) throws(FakeBoxError) {
        guard let folder = items[folderID], folder.kind == .folder else { throw .notFound }
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/"), !name.contains("\\"),
              name.utf8.count <= 255, name == name.trimmingCharacters(in: .whitespaces)
        else { throw .badRequest("item_name_invalid", "the name is not valid") }
        if let holder = holder(of: name, in: folderID), holder.id != except { throw .nameInUse(holder) }
    }

    private mutating func touch(_ folderID: String, at now: Int) {
        // Box moves a folder's `modified_at` when its items change, not its etag (which only its own
        // rename or move moves).
        items[folderID]?.modified = now
    }
}

/// Box's answers to a change it refuses.
public enum FakeBoxError: Error, Sendable {
    case notFound
    case preconditionFailed
    case nameInUse(FakeBoxState.Item)
    case badRequest(String, String)
}
