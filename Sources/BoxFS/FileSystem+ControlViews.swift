import BoxAPI
import Foundation

/// Fetching the control directory's views from Box (see `ControlDirectory`): each is asked for when first
/// visited, kept `ControlDirectory.viewTTL`, and fetched once however many ask at the same time. Failures
/// go through the client's one retry policy and come out through `FSError`'s one errno mapping.
extension FileSystem {
    /// The mounted folder (or the made-up folder around a single mounted file).
    var mountedFolder: BoxItem { tree.withLock { $0.node(Self.rootInode)!.item } }

    /// The file as the mount knows it now (a newer version after a save), else as it was looked up.
    func currentFile(_ file: BoxItem) -> BoxItem {
        tree.withLock { tree in
            tree.inodeByID[.box(file.id)].flatMap { tree.node($0)?.item } ?? tree.listed(file)
        } ?? file
    }

    /// The file's earlier versions, named; asked again once the file has a new current version.
    func namedVersions(of file: BoxItem) async throws(FSError) -> NamedVersions {
        let current = currentFile(file).contentVersion
        if let cached = controlState.views.withLock({ $0.freshVersions(of: file.id, current: current, now: .now) }) {
            return cached
        }
        do {
            return try await controlState.versionFetches.run(file.id) { [self] in
                let named = NamedVersions(entries: VersionNames.named(try await client.fileVersions(fileID: file.id)))
                controlState.views.withLock { $0.store(named, of: file.id, current: current, at: .now) }
                return named
            }
        } catch {
            throw FSError(error, context: "listing the versions of \(file.name)")
        }
    }

    /// The trash or a search's results, laid out by path.
    func viewTree(_ key: ViewKey) async throws(FSError) -> ViewTree {
        if let cached = controlState.views.withLock({ $0.freshTree(key, now: .now) }) { return cached }
        let generation = controlState.generation.load(ordering: .acquiring)
        do {
            return try await controlState.treeFetches.run(.init(view: key, generation: generation)) { [self] in
                let tree: ViewTree
                switch key {
                case .trash: tree = try await fetchTrashTree()
                case .search(let query): tree = try await fetchSearchTree(query)
                }
                controlState.views.withLock { views in
                    // Checked under the lock `trashChanged` and `boxfs refresh` take: a change since the fetch
                    // began leaves nothing stale behind.
                    if controlState.generation.load(ordering: .acquiring) == generation { views.store(tree, for: key, at: .now) }
                }
                return tree
            }
        } catch {
            switch key {
            case .trash: throw FSError(error, context: "listing the trash")
            case .search(let query): throw FSError(error, context: "searching Box for \"\(query)\"")
            }
        }
    }

    /// The next fetch of the trash asks Box (the mount just deleted something).
    func trashChanged() {
        controlState.views.withLock { views in
            controlState.generation.add(1, ordering: .acquiringAndReleasing)
            views.trees[.trash] = nil
        }
    }

    /// Box's search for `query` within the mounted folder; every result at its path below it.
    private func fetchSearchTree(_ query: String) async throws -> ViewTree {
        let root = mountedFolder.id
        let scope = root == "0" ? [] : [root]
        let results = try await client.search(
            BoxSearchQuery(query, ancestorFolderIDs: scope), maxResults: ControlDirectory.maxSearchResults)
        var tree = ViewTree()
        for result in results where result.item.kind != .webLink && result.item.id != root {
            guard let top = result.pathCollection.firstIndex(where: { $0.id == root }) else { continue }
            let folder = result.pathCollection[(top + 1)...].map(\.name)
            tree.add(result.item.kind == .folder ? .folder(result.item) : .file(result.item), named: result.item.name, in: folder)
        }
        return tree
    }

    /// Box's trash, each item at the path it had below the mounted folder (items from elsewhere left out).
    /// Box lists only what was deleted directly; an item's `parent` is where it was, which is either a folder
    /// of the account (its path asked for once per folder) or a folder also in the trash (`rm -r` deletes
    /// the files first, then their folders), placed first.
    private func fetchTrashTree() async throws -> ViewTree {
        let root = mountedFolder.id
        let trashed = try await client.trashItems().filter { $0.item.kind != .webLink }
        let trashedFolders = Dictionary(
            trashed.filter { $0.item.kind == .folder }.map { ($0.item.id, $0) }, uniquingKeysWith: { first, _ in first })

        // Where each folder of the account that held a trashed item is, below the mounted folder (nil: elsewhere).
        var livePaths: [String: [String]?] = [root: []]
        for entry in trashed {
            guard let parent = entry.item.parentID, trashedFolders[parent] == nil, livePaths[parent] == nil else { continue }
            do {
                let folder = try await client.itemWithPath(id: parent, kind: .folder)
                let chain = folder.pathCollection + [BoxPathEntry(id: folder.item.id, name: folder.item.name)]
                livePaths[parent] = chain.firstIndex { $0.id == root }.map { chain[($0 + 1)...].map(\.name) }
            } catch let error as BoxAPIError where error.status == 404 {
                livePaths[parent] = .some(nil)  // gone too (deleted with a folder above it): not placed
            }
        }

        // Trashed folders above trashed folders: place the outer ones first, newest first at each depth.
        func depth(_ entry: BoxItemWithPath) -> Int {
            var depth = 0
            var parent = entry.item.parentID
            var seen: Set<String> = []
            while let id = parent, let folder = trashedFolders[id], seen.insert(id).inserted {
                depth += 1
                parent = folder.item.parentID
            }
            return depth
        }
        let ordered = trashed.map { (entry: $0, depth: depth($0)) }.sorted {
            if $0.depth != $1.depth { return $0.depth < $1.depth }
            if $0.entry.item.kind != $1.entry.item.kind { return $0.entry.item.kind == .folder }
            return ($0.entry.trashedAt ?? .distantPast) > ($1.entry.trashedAt ?? .distantPast)
        }.map(\.entry)
        var tree = ViewTree()
        var placed: [String: [String]] = [:]
        for entry in ordered {
            guard let parent = entry.item.parentID else { continue }
            let folder: [String]
            if let path = placed[parent] {
                folder = path
            } else if trashedFolders[parent] == nil, let known = livePaths[parent], let path = known {
                folder = path
            } else {
                continue  // outside the mounted folder, or its folder could not be placed
            }
            let item = entry.item
            placed[item.id] = tree.add(item.kind == .folder ? .folder(item) : .file(item), named: item.name, in: folder)
        }
        return tree
    }
}
