import BoxAPI

/// A tree of Box items laid out by path, for the trash and search views: folders on the way are made up
/// as needed, so every item sits where it was (trash) or is (search) in the mount.
///
/// Paths are name components below the mounted folder. Where two items would take the same path (a file
/// deleted, made again and deleted again; a trashed folder and a trashed file of one name) the first added
/// keeps the name and later ones get ` (2)`, ` (3)`, ... before the extension (`report (2).txt`).
struct ViewTree: Sendable {
    enum Entry: Sendable {
        /// A folder; nil for one made up on the way to an item (a folder of the mount, not itself a result).
        case folder(BoxItem?)
        case file(BoxItem)

        var isFolder: Bool { if case .folder = self { true } else { false } }
    }

    /// Entries by the path of their folder (components joined by NUL, "" for the top), names in insertion order.
    private var folders: [String: [(name: String, entry: Entry)]] = ["": []]

    private static func key(_ path: ArraySlice<String>) -> String { path.joined(separator: "\u{0}") }

    /// Adds `entry` under `folder` as `name`; returns the path it got (renamed when the name was taken by another
    /// item). A folder added where a made-up folder stands takes its place and keeps its entries.
    @discardableResult
    mutating func add(_ entry: Entry, named name: String, in folder: [String]) -> [String] {
        makeFolders(folder)
        let key = Self.key(folder[...])
        var entries = folders[key] ?? []
        if case .folder(let item?) = entry, let index = entries.firstIndex(where: {
            if $0.name == name, case .folder(nil) = $0.entry { true } else { false }
        }) {
            entries[index].entry = .folder(item)
            folders[key] = entries
            return folder + [name]
        }
        var unique = name
        var count = 1
        while entries.contains(where: { $0.name == unique }) {
            count += 1
            unique = Self.numbered(name, count)
        }
        entries.append((unique, entry))
        folders[key] = entries
        if entry.isFolder, folders[Self.key((folder + [unique])[...])] == nil { folders[Self.key((folder + [unique])[...])] = [] }
        return folder + [unique]
    }

    /// Makes the folders of `path` that do not exist yet.
    private mutating func makeFolders(_ path: [String]) {
        for depth in 0..<path.count {
            let parent = Self.key(path[..<depth])
            let name = path[depth]
            if folders[Self.key(path[...depth])] != nil { continue }
            folders[parent, default: []].append((name, .folder(nil)))
            folders[Self.key(path[...depth])] = []
        }
    }

    /// `report.txt`, 2 → `report (2).txt`; `.profile`, 2 → `.profile (2)`.
    static func numbered(_ name: String, _ count: Int) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "\(name) (\(count))" }
        return "\(name[..<dot]) (\(count))\(name[dot...])"
    }

    /// The entries of the folder at `path`, or nil when there is no folder there.
    func entries(of path: [String]) -> [(name: String, entry: Entry)]? { folders[Self.key(path[...])] }

    /// What is at `path` (the top is a folder).
    func entry(at path: [String]) -> Entry? {
        guard let last = path.last else { return .folder(nil) }
        return entries(of: Array(path.dropLast()))?.first { $0.name == last }?.entry
    }
}
