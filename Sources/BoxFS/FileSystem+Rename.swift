import BoxAPI
import Foundation
import WriteBack

extension FileSystem {
    /// Renames or moves `name` in `parent` to `newName` in `newParent`, replacing what is there as
    /// POSIX `rename` does. A file renamed over another file becomes a new version of that file (an
    /// editor's save keeps the Box file, its versions and its shared links), never a delete and a
    /// new file. `noReplace` is RENAME_NOREPLACE.
    public func rename(
        parent: UInt64, name: String, newParent: UInt64, newName: String, noReplace: Bool
    ) async throws(FSError) {
        _ = try requireWriteBack(name)
        try BoxName.validate(newName)
        let (folder, item) = try await child(name, in: parent)
        if parent == newParent, name == newName { return }
        let target = try folderItem(newParent)
        let present = try await listing(of: target, inode: newParent)
        if let clash = present.first(where: {
            BoxName.sameOnBox($0.name, newName) && $0.name != newName && $0.id != item.id
        }) {
            throw FSError(EEXIST, "\(newName): Box ignores case and \"\(clash.name)\" exists")
        }
        if let existing = present.first(where: { $0.name == newName }), existing.id != item.id {
            if noReplace { throw .exists(newName) }
            switch (item.kind, existing.kind) {
            case (.folder, .folder):
                try await removeEmptyFolder(existing, from: target)
            case (.file, .file):
                return try await replace(existing, with: item, from: folder, in: target, parentInode: newParent)
            case (.folder, _):
                throw .notDirectory(newName)
            default:
                throw .isDirectory(newName)
            }
        }
        try await move(item, from: folder, to: target, name: newName, parentInode: newParent)
    }

    /// Moves an item. A file Box does not have yet only changes where its upload goes.
    private func move(
        _ item: BoxItem, from folder: BoxItem, to target: BoxItem, name: String, parentInode: UInt64
    ) async throws(FSError) {
        let local = locals.withLock { $0.file(itemID: item.id) }
        if let local, local.isNewToBox {
            let moved = try await relocate(local.number, name: name, parentID: target.id)
            tree.withLock { tree in
                tree.updateNode(id: moved.id, item: moved)
                tree.setParent(id: moved.id, parentInode: parentInode)
            }
            return
        }
        let newName = name == item.name ? nil : name
        let newParent = target.id == folder.id ? nil : target.id
        let moved: BoxItem
        do {
            moved = item.kind == .folder
                ? try await client.updateFolder(id: item.id, name: newName, parentID: newParent)
                : try await client.updateFile(id: item.id, name: newName, parentID: newParent)
        } catch {
            throw FSError(error, context: "renaming \(item.name) to \(name)")
        }
        if let local {
            // A rename changes the etag but not the content: keep the pending upload's base current.
            locals.withLock { files in
                files.update(local.number) { file in
                    if let base = file.base, base.sha1 == moved.sha1 { file.base = moved }
                }
            }
            _ = try await relocate(local.number, name: moved.name, parentID: target.id)
        }
        tree.withLock { tree in
            tree.removeFromListing(id: item.id, folderID: folder.id)
            tree.upsert(moved, inFolder: target.id)
            tree.setParent(id: item.id, parentInode: parentInode)
        }
    }

    /// Points a local file (and its pending upload) at a new name and folder; returns its item.
    @discardableResult
    private func relocate(_ number: UInt64, name: String, parentID: String) async throws(FSError) -> BoxItem {
        guard let file = locals.withLock({ files in
            files.update(number) { file in
                file.item.name = name
                file.item.parentID = parentID
                return file
            }
        }) else { throw .badHandle }
        if let entryID = file.entryID, let writeBack {
            do { try await writeBack.uploader.retarget(entryID, to: file.target) } catch {
                throw FSError(error, context: "moving the pending upload of \(name)")
            }
        }
        return file.item
    }

    /// `rename(source, existing)` for two files: the source's content becomes the next version of
    /// `existing` (same Box id), and the source leaves its old name (deleted from Box if it was there).
    private func replace(
        _ existing: BoxItem, with source: BoxItem, from folder: BoxItem, in target: BoxItem, parentInode: UInt64
    ) async throws(FSError) {
        let number = try await localCopy(of: source, empty: source.size == 0)
        let superseded = locals.withLock { $0.file(itemID: existing.id) }
        if let superseded, superseded.number != number { try await forgetLocal(superseded.number) }
        let base = superseded?.base ?? existing
        let sourceOnBox = locals.withLock { $0.file(number)?.isNewToBox } == false && source.id != existing.id
        let file = locals.withLock { files in
            files.update(number) { file in
                file.base = base
                file.item.id = existing.id
                file.item.name = existing.name
                file.item.parentID = target.id
                file.item.etag = base.etag
                file.item.sha1 = base.sha1
                file.item.fileVersionID = base.fileVersionID
                return file
            }
        }
        guard let file else { throw .badHandle }
        // Journal the new destination before the source leaves Box, so no step loses the content.
        if let entryID = file.entryID, let writeBack {
            do { try await writeBack.uploader.retarget(entryID, to: file.target) } catch {
                throw FSError(error, context: "redirecting the upload of \(source.name)")
            }
        } else {
            try await modify(number, modified: file.item.contentModifiedAt ?? Date()) { _ throws(FSError) in .unchanged }
        }
        if sourceOnBox {
            do { try await client.deleteFile(id: source.id) } catch let error as BoxAPIError where error.kind == .notFound {
            } catch {
                logger.warning("\(source.name) now goes to \(existing.name), but removing it from Box failed: \(error)")
            }
        }
        tree.withLock { tree in
            tree.removeFromListing(id: source.id, folderID: folder.id)
            tree.rebind(id: source.id, to: file.item)
            tree.setParent(id: existing.id, parentInode: parentInode)
        }
    }
}
