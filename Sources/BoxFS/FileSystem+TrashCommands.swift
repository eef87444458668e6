import BoxAPI
import Foundation

/// `boxfs trash list|restore|purge`: the Box trash of the mounted tree, by the paths items had in the mount.
///
/// Box's trash lists only what was deleted directly (a folder, not the files that went with it), and gives a
/// trashed item's `path_collection` as just the Trash: where it was is its `parent`, whose path below the mount's
/// root is found from the tree or, for a folder the mount never listed, from its `path_collection` on Box. An
/// item whose folder is itself in the trash, or that was outside the mounted folder, is left out.
extension FileSystem {
    func trashList(_ request: CommandRequest, folder: UInt64) async throws(FSError) -> CommandAnswer {
        let scope = try folderItem(folder)
        let trashed = try await trashItems()
        var paths = FolderPaths(root: rootFolderID)
        var listed: [CommandAnswer.Trashed] = []
        for entry in trashed {
            guard let parentID = entry.item.parentID,
                  let parentPath = await folderPath(parentID, &paths),
                  let relative = relativePath(parentPath, join: entry.item.name, under: await folderPath(scope.id, &paths))
            else { continue }
            listed.append(CommandAnswer.Trashed(
                path: relative, id: entry.item.id, type: entry.item.kind.rawValue, size: entry.item.size,
                trashedAt: entry.trashedAt))
        }
        var answer = CommandAnswer()
        answer.trash = listed.sorted { ($0.path, $0.id) < ($1.path, $1.id) }
        return answer
    }

    /// Restores the item that was `name` in this folder (the one trashed last, if several were) to where it
    /// was, everything that went with it included; the mount shows it before the command returns. A name taken
    /// here (in the mount, or on Box: 409) is refused, and the item stays in the trash.
    ///
    /// A folder comes back whole: `rm -r` deletes a folder's files and subfolders one by one before the folder
    /// itself, so each is in the trash on its own, with the folder as its parent. Everything still in the trash
    /// that was deleted from inside the folder (at any depth) is restored after it, parents first.
    func trashRestore(_ request: CommandRequest, folder: UInt64) async throws(FSError) -> CommandAnswer {
        let (scope, entry, trash) = try await trashedEntry(request, folder: folder)
        let name = entry.item.name
        if (try? await child(name, in: folder)) != nil {
            throw FSError(.exists, "\(name): an item of that name is already in \(scope.name.isEmpty ? "the folder" : scope.name); "
                + "rename or move it first (the trashed one stays in the trash)")
        }
        let restored: BoxItem
        do {
            restored = try await client.restoreTrashedItem(entry.item.kind, id: entry.item.id)
        } catch {
            throw commandFailure(error, "restoring \(name)")
        }
        var failures: [FSError] = []
        for inside in Self.deletedInside(restored, trash) {
            do {
                _ = try await client.restoreTrashedItem(inside.item.kind, id: inside.item.id)
            } catch {
                failures.append(commandFailure(error, "restoring \(inside.item.name)"))
            }
        }
        entriesChanged(in: scope.id)
        trashChanged()
        await showCommandResult(restored)
        if let first = failures.first {
            throw FSError(first.kind, "\(name) restored, but \(failures.count) item(s) deleted from inside it are still in "
                + "the trash: \(first.message)")
        }
        var paths = FolderPaths(root: rootFolderID)
        var answer = CommandAnswer()
        if let parentID = restored.parentID, let parentPath = await folderPath(parentID, &paths) {
            answer.restoredPath = relativePath(parentPath, join: restored.name, under: await folderPath(scope.id, &paths))
                ?? (parentPath.isEmpty ? restored.name : parentPath + "/" + restored.name)
        }
        return answer
    }

    /// What was deleted from inside `folder` on its own and is still in `trash`, at any depth, parents first.
    static func deletedInside(_ folder: BoxItem, _ trash: [BoxItemWithPath]) -> [BoxItemWithPath] {
        guard folder.kind == .folder else { return [] }
        let byParent = Dictionary(grouping: trash.filter { $0.item.parentID != nil }) { $0.item.parentID ?? "" }
        var found: [BoxItemWithPath] = []
        var folders = [folder.id]
        var seen: Set<String> = [folder.id]
        while let id = folders.popLast() {
            for entry in byParent[id] ?? [] where seen.insert(entry.item.id).inserted {
                found.append(entry)
                if entry.item.kind == .folder { folders.insert(entry.item.id, at: 0) }
            }
        }
        return found
    }

    /// Deletes the item that was `name` in this folder from the trash for good; for a folder, also what was
    /// deleted from inside it on its own (see `trashRestore`), which could no longer be reached otherwise.
    func trashPurge(_ request: CommandRequest, folder: UInt64) async throws(FSError) -> CommandAnswer {
        let (_, entry, trash) = try await trashedEntry(request, folder: folder)
        for item in [entry] + Self.deletedInside(entry.item, trash) {
            do {
                try await client.purgeTrashedItem(item.item.kind, id: item.item.id)
            } catch {
                throw commandFailure(error, "purging \(item.item.name)")
            }
        }
        trashChanged()
        var answer = CommandAnswer()
        answer.purged = true
        return answer
    }

    /// The trashed item that was `request.name` in the folder (the latest trashed of that name).
    private func trashedEntry(_ request: CommandRequest, folder: UInt64) async throws(FSError)
        -> (scope: BoxItem, entry: BoxItemWithPath, trash: [BoxItemWithPath])
    {
        let scope = try folderItem(folder)
        guard let name = request.name, !name.isEmpty else { throw FSError(.invalidArgument, "which item? give its path") }
        let trash = try await trashItems()
        let matches = trash.filter { $0.item.parentID == scope.id && BoxName.same($0.item.name, name) }
        guard let entry = matches.max(by: { ($0.trashedAt ?? .distantPast) < ($1.trashedAt ?? .distantPast) }) else {
            throw FSError(.notFound, "\(name) is not in the trash (`boxfs trash list` shows what is)")
        }
        return (scope, entry, trash)
    }

    private func trashItems() async throws(FSError) -> [BoxItemWithPath] {
        do {
            return try await client.trashItems()
        } catch {
            throw commandFailure(error, "listing the trash")
        }
    }
}

/// Paths of Box folders below the mount's root, found once per command.
struct FolderPaths {
    let root: String
    var known: [String: String?] = [:]
}

extension FileSystem {
    /// The Box id of the mounted folder.
    var rootFolderID: String { tree.withLock { $0.node(Self.rootInode)?.item.id } ?? "0" }

    /// The path of folder `id` below the mount's root ("" for the root), nil when it is not below it (or is in
    /// the trash). From the tree when the mount knows it, else from the folder's `path_collection` on Box.
    func folderPath(_ id: String, _ paths: inout FolderPaths) async -> String? {
        if id == paths.root { return "" }
        if let known = paths.known[id] { return known }
        var path: String?
        if let inTree = tree.withLock({ $0.path(ofFolderID: id) }) {
            path = inTree
        } else if let folder = try? await client.itemWithPath(id: id, kind: .folder), folder.itemStatus ?? "active" == "active",
                  let start = folder.pathCollection.firstIndex(where: { $0.id == paths.root }) {
            path = (folder.pathCollection[(start + 1)...].map(\.name) + [folder.item.name]).joined(separator: "/")
        }
        paths.known[id] = .some(path)
        return path
    }

    /// `parent/name` relative to the folder at `scope` (both below the mount's root), nil when outside it.
    func relativePath(_ parent: String, join name: String, under scope: String?) -> String? {
        guard let scope else { return nil }
        let full = parent.isEmpty ? name : parent + "/" + name
        if scope.isEmpty { return full }
        guard full.hasPrefix(scope + "/") else { return nil }
        return String(full.dropFirst(scope.count + 1))
    }
}
