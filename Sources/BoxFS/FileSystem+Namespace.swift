import BoxAPI
import Foundation

/// Folders and deletions happen on Box at once (only file content is written back later), so
/// an error reaches the caller of `mkdir`, `rm` or `rmdir` as an errno.
extension FileSystem {
    public func makeDirectory(parent: UInt64, name: String) async throws(FSError) -> FileAttributes {
        _ = try requireWriteBack(name)
        try BoxName.validate(name)
        let folder = try folderItem(parent)
        try await checkNameFree(name, in: folder, inode: parent)
        let created: BoxItem
        do { created = try await client.createFolder(name: name, parentID: folder.id) } catch {
            throw FSError(error, context: "creating folder \(name)")
        }
        let node = tree.withLock { tree in
            tree.upsert(created, inFolder: folder.id)
            _ = tree.store(listing: [], folderID: created.id, at: .now)  // new: empty, no need to ask
            return tree.remember(created, parentInode: parent)
        }
        return attributes(of: created, inode: node.inode)
    }

    public func unlink(parent: UInt64, name: String) async throws(FSError) {
        _ = try requireWriteBack(name)
        let (folder, item) = try await child(name, in: parent)
        guard item.kind == .file else { throw .isDirectory(name) }
        try await removeFile(item, from: folder)
    }

    public func removeDirectory(parent: UInt64, name: String) async throws(FSError) {
        _ = try requireWriteBack(name)
        let (folder, item) = try await child(name, in: parent)
        guard item.kind == .folder else { throw .notDirectory(name) }
        try await removeEmptyFolder(item, from: folder)
    }

    /// The item `name` in folder `parent` (as shown: Box's listing with local files over it).
    func child(_ name: String, in parent: UInt64) async throws(FSError) -> (folder: BoxItem, item: BoxItem) {
        let folder = try folderItem(parent)
        let items = try await listing(of: folder, inode: parent)
        guard let item = items.first(where: { $0.name == name }) else { throw .notFound(name) }
        return (folder, item)
    }

    /// Deletes a file on Box (unless it never got there) and drops its pending upload. Open
    /// handles keep working on the local copy until closed, as POSIX has it.
    func removeFile(_ item: BoxItem, from folder: BoxItem) async throws(FSError) {
        let local = locals.withLock { $0.file(itemID: item.id) }
        if local?.isNewToBox != true {
            do { try await client.deleteFile(id: item.id) } catch let error as BoxAPIError where error.kind == .notFound {
                // Already gone from Box: the goal is reached.
            } catch {
                throw FSError(error, context: "deleting \(item.name)")
            }
        }
        if let local { try await forgetLocal(local.number) }
        tree.withLock { tree in
            tree.removeFromListing(id: item.id, folderID: folder.id, deleted: true)
            tree.detach(id: item.id)
        }
    }

    /// A local file whose content no longer goes anywhere: its pending upload is dropped (an upload
    /// under way is stopped, or returned if it landed anyway); it stays readable through handles
    /// already open, and is removed when the last one closes.
    @discardableResult
    func forgetLocal(_ number: UInt64) async throws(FSError) -> BoxItem? {
        let entryID = locals.withLock { files in
            files.update(number) { file in
                defer { file.entryID = nil; file.unlinked = true }
                return file.entryID
            }
        }
        var landed: BoxItem?
        if let entryID, let entryID, let writeBack {
            do { landed = try await writeBack.uploader.discard(entryID) } catch {
                throw FSError(error, context: "dropping a pending upload")
            }
        }
        dropIfIdle(number)
        return landed
    }

    /// Deletes an empty folder (ENOTEMPTY otherwise, judged by a fresh listing and by Box).
    func removeEmptyFolder(_ item: BoxItem, from folder: BoxItem) async throws(FSError) {
        tree.withLock { $0.invalidateListing(folderID: item.id) }
        let inode = tree.withLock { $0.inode(forItemID: item.id) } ?? 0
        guard try await listing(of: item, inode: inode).isEmpty else { throw .notEmpty(item.name) }
        do { try await client.deleteFolder(id: item.id, recursive: false) } catch {
            throw FSError(error, context: "removing folder \(item.name)")
        }
        tree.withLock { tree in
            tree.removeFromListing(id: item.id, folderID: folder.id, deleted: true)
            tree.invalidateListing(folderID: item.id)
            tree.detach(id: item.id)
        }
    }
}
