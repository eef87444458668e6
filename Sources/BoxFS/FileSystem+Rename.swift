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
        try await refuseControlChange(parent: parent, name: name)
        try await refuseControlChange(parent: newParent, name: newName)
        try await renameEntry(parent: parent, name: name, newParent: newParent, newName: newName, noReplace: noReplace)
        await keepUploadFolderPaths(renamedFrom: parent, name, to: newParent, newName)
        entriesChanged(in: try folderItem(parent).id, try folderItem(newParent).id)
        trashChanged()  // a rename over a file sends the replaced Box file (or the source's) to the trash
    }

    private func renameEntry(
        parent: UInt64, name: String, newParent: UInt64, newName: String, noReplace: Bool
    ) async throws(FSError) {
        _ = try requireWriteBack(name)
        try validateName(newName, renaming: true)
        let (folder, listed) = try await child(name, in: parent)
        if parent == newParent, BoxName.same(name, newName) { return }
        let target = try folderItem(newParent)
        // The source is followed by its inode: an upload of it landing during the awaits below gives it its Box id.
        let source = tree.withLock { $0.inode(forItemID: listed.id) }
        await cleanups.settle([folder.id, target.id])
        let present = try await listing(of: target, inode: newParent)
        let item = try await currentSource(listed, inode: source, in: folder)
        if let clash = present.first(where: {
            BoxName.sameOnBox($0.name, newName) && !BoxName.same($0.name, newName) && $0.id != item.id
        }) {
            throw FSError(.exists, "\(newName): Box ignores case and \"\(clash.name)\" exists")
        }
        if let existing = present.first(where: { BoxName.same($0.name, newName) }), existing.id != item.id {
            if noReplace { throw .exists(newName) }
            switch (item.kind, existing.kind) {
            case (.folder, .folder):
                try await removeEmptyFolder(existing, from: target)
            case (.file, .file):
                return try await replace(existing, with: item, inode: source, from: folder, in: target, parentInode: newParent)
            case (.folder, _):
                throw .notDirectory(newName)
            default:
                throw .isDirectory(newName)
            }
        }
        try await move(item, inode: source, from: folder, to: target, name: newName, parentInode: newParent)
    }

    /// `item` as it is now, found through its inode (see `InodeTable.currentID`): with its Box id if its
    /// first upload landed since it was listed, and with its local file's name and size.
    func current(_ item: BoxItem, inode: UInt64?) -> BoxItem {
        state.withLock { state in
            let id = state.tree.currentID(inode: inode, else: item.id)
            guard id != item.id else { return item }
            var now = state.locals.file(itemID: id)?.item ?? inode.flatMap { state.tree.node($0)?.item } ?? item
            now.id = id
            return now
        }
    }

    /// `current(listed, inode:)`, or, when that still names a made-up id no local file has any more, the item the
    /// source folder shows under that name now: the file's first upload landed while the rename waited, and no
    /// node followed it to its Box id (model seed 23150: the rename asked Box to rename `local-4`, EIO).
    private func currentSource(_ listed: BoxItem, inode: UInt64?, in folder: BoxItem) async throws(FSError) -> BoxItem {
        let item = current(listed, inode: inode)
        guard case .local = NodeID(item), locals.withLock({ $0.file(itemID: item.id) }) == nil else { return item }
        let folderInode = tree.withLock { $0.inode(forItemID: folder.id) } ?? 0
        let shown = try await listing(of: folder, inode: folderInode)
        guard let now = shown.first(where: { BoxName.same($0.name, listed.name) }) else {
            throw .notFound(listed.name, in: folder)
        }
        return now
    }

    /// Moves an item (`inode` is its node, if the kernel has one). A file Box does not have yet only changes
    /// where its upload goes.
    private func move(
        _ listed: BoxItem, inode: UInt64?, from folder: BoxItem, to target: BoxItem, name: String, parentInode: UInt64
    ) async throws(FSError) {
        let item = try await currentSource(listed, inode: inode, in: folder)
        let local = locals.withLock { $0.file(itemID: item.id) }
        if let local, local.isNewToBox {
            try await relocate(local.number, name: name, parentID: target.id)
            // Its upload may have landed meanwhile: the node and the local file now carry its Box id.
            state.withLock { state in
                let id = state.tree.currentID(inode: inode, else: item.id)
                if let moved = state.locals.file(local.number)?.item { state.tree.updateNode(id: id, item: moved) }
                state.tree.setParent(id: id, parentInode: parentInode)
            }
            return
        }
        let newName = BoxName.same(name, item.name) ? nil : name
        let newParent = target.id == folder.id ? nil : target.id
        // A local copy is named anew before Box is asked, so an upload of it landing meanwhile follows the
        // new name (its follow-up would otherwise rename the Box file back). Gone already: its upload landed
        // and the Box rename below is all there is to do.
        var relocated = false
        if let local { relocated = (try? await relocate(local.number, name: name, parentID: target.id)) != nil }
        let moved: BoxItem
        do {
            moved = try await retryingAfterOwnChanges(inFolder: target.id) {
                try await boxMove(item, name: newName, parentID: newParent)
            }
        } catch {
            if relocated, let local { _ = try? await relocate(local.number, name: item.name, parentID: folder.id) }
            throw refusedName(FSError(error, context: "renaming \(item.name) to \(name)"), renaming: true)
        }
        if let local {
            // A rename changes the etag but not the content: keep the pending upload's base current.
            locals.withLock { files in
                files.update(local.number) { file in
                    if let base = file.base, base.sha1 == moved.sha1 { file.base = moved }
                    file.item.name = moved.name
                }
            }
        }
        tree.withLock { tree in
            tree.removeFromListing(id: item.id, folderID: folder.id)
            tree.upsert(moved, inFolder: target.id)
            tree.setParent(id: item.id, parentInode: parentInode)
        }
    }

    private func boxMove(_ item: BoxItem, name: String?, parentID: String?) async throws -> BoxItem {
        // `currentSource` answers a Box item or a local file's own: a file new to Box is relocated, never moved here.
        guard case .box(let id) = NodeID(item) else {
            throw FSError(.notFound, "\(item.name): \(NodeID(item)) is not on Box, so Box cannot rename it")
        }
        return item.kind == .folder
            ? try await client.updateFolder(id: id, name: name, parentID: parentID)
            : try await client.updateFile(id: id, name: name, parentID: parentID)
    }

    /// Runs a Box call that takes a name in `folderID` (or, `emptying`, that needs the folder empty). Box
    /// answering that the name is in use (or the folder is not empty) although the mount shows otherwise means
    /// an upload of this mount landed there after all (one since renamed, moved or replaced here), which its
    /// follow-up moves or removes: once the folder's uploads on the wire and cleanups are done, the call is made
    /// once more, and the name is then free or truly taken. A file there that an upload whose answer was lost
    /// made, which the mount hides (`UnansweredUploads`), is removed first.
    func retryingAfterOwnChanges<T>(
        inFolder folderID: String, emptying: Bool = false, _ call: () async throws -> T
    ) async throws -> T {
        do {
            return try await call()
        } catch let error as BoxAPIError where emptying ? error.code == "folder_not_empty" : error.isNameInUse {
            await writeBack?.uploader.settle(folderID: folderID)
            await cleanups.settle([folderID])
            let suspects = emptying ? tree.withLock { $0.listings[folderID]?.items ?? [] } : error.conflicts
            await removeUnansweredStrays(suspects, inFolder: folderID)
            return try await call()
        }
    }

    /// Points a local file (and its pending upload) at a new name and folder; returns its item. If
    /// the upload finished meanwhile, the upload's own follow-up renames the Box file to match.
    @discardableResult
    private func relocate(_ number: UInt64, name: String, parentID: String) async throws(FSError) -> BoxItem {
        guard let file = locals.withLock({ files in
            files.update(number) { file in
                file.item.name = name
                file.item.parentID = parentID
                return file
            }
        }) else { throw .badHandle }
        if try await !redirectUpload(number, entryID: file.entryID, rejournal: false),
            let landed = locals.withLock({ $0.file(number)?.base }), landed.name != name || landed.parentID != parentID
        {
            // It reached Box under the old name just before this rename: rename it there.
            do { _ = try await client.updateFile(id: landed.id, name: name, parentID: parentID) } catch {
                throw FSError(error, context: "renaming \(landed.name) to \(name)")
            }
        }
        return file.item
    }

    /// Tells the uploader where a local file's content goes now. If its entry is gone (the upload
    /// finished meanwhile, to the old place) and `rejournal`, the content is journaled again for
    /// its new place; otherwise the upload's own follow-up renames what landed.
    @discardableResult
    private func redirectUpload(_ number: UInt64, entryID: Int64?, rejournal: Bool) async throws(FSError) -> Bool {
        guard let entryID, let writeBack, let file = locals.withLock({ $0.file(number) }) else { return true }
        do {
            if try await writeBack.uploader.retarget(entryID, to: file.target) {
                await keepUploadFolderPath(file.target.parentID)
                return true
            }
        } catch {
            throw FSError(error, context: "moving the pending upload of \(file.item.name)")
        }
        locals.withLock { $0.forgetEntry(entryID, of: number) }
        if rejournal {
            try await modify(number, modified: file.item.contentModifiedAt ?? Date()) { _ throws(FSError) in .unchanged }
        }
        return false
    }

    /// `rename(source, existing)` for two files: the source's content becomes the next version of
    /// `existing` (same Box id), and the source leaves its old name (deleted from Box if it was there).
    /// If `existing` is itself only local (never uploaded), the source simply takes its name.
    private func replace(
        _ existing: BoxItem, with listed: BoxItem, inode: UInt64?, from folder: BoxItem, in target: BoxItem,
        parentInode: UInt64
    ) async throws(FSError) {
        let existingInode = tree.withLock { $0.inode(forItemID: existing.id) }
        var existing = existing
        var superseded = locals.withLock { $0.file(itemID: existing.id) }
        // A file Box does not have yet may have its first upload on the wire: it is let finish (and no other
        // start) first, so what it made is known, and built on below. Dropped at once, an upload that landed just
        // then (its answer handled between the look at the file and the drop) stayed on Box under the name it was
        // sent with, nobody's file (model seed 25172).
        let held = superseded?.isNewToBox == true ? superseded?.entryID : nil
        try await whileUploadHeld(held) { () async throws(FSError) in
            if held != nil {
                superseded = superseded.flatMap { file in locals.withLock { $0.file(file.number) } }
                existing = superseded?.item ?? current(existing, inode: existingInode)
            }
            try await replace(existing, superseded: superseded, existingInode: existingInode, with: listed,
                              inode: inode, from: folder, in: target, parentInode: parentInode)
        }
    }

    private func replace(
        _ existing: BoxItem, superseded: LocalFiles.File?, existingInode: UInt64?, with listed: BoxItem,
        inode: UInt64?, from folder: BoxItem, in target: BoxItem, parentInode: UInt64
    ) async throws(FSError) {
        if let superseded, superseded.isNewToBox {
            guard locals.withLock({ $0.file(itemID: listed.id)?.isNewToBox }) != true else {
                try await forgetLocal(superseded.number)
                tree.withLock { $0.detach(id: $0.currentID(inode: existingInode, else: existing.id)) }
                return try await move(listed, inode: inode, from: folder, to: target, name: existing.name, parentInode: parentInode)
            }
            // A source on Box takes the name on Box first; only then does the new file it replaces go. The other way
            // round, a move that failed (Box out of reach) answered EIO with that file already gone, its content lost
            // (model seed 182). Box does not hold the replaced file's name: its upload is held.
            try await move(listed, inode: inode, from: folder, to: target, name: existing.name, parentInode: parentInode)
            try await forgetLocal(superseded.number)
            tree.withLock { $0.detach(id: $0.currentID(inode: existingInode, else: existing.id)) }
            return
        }
        let source = try await currentSource(listed, inode: inode, in: folder)
        let number = try await localCopy(of: source, empty: source.size == 0)
        // Pinned like an open handle, so an upload finishing meanwhile cannot drop the copy.
        pin(number)
        do {
            // The target's own pending content is replaced: stop its upload first, and if a version
            // landed meanwhile, base the new content on it (else Box would see a conflict).
            var base = superseded?.base ?? existing
            if let superseded, superseded.number != number {
                // Only a version of that same Box file is built on. What the upload made for a target its entry has
                // since left (a new file under its old name, sent before a rename here made it the next version of
                // `existing`) is a leftover, removed as one (model seed 35064: the content went to that removed
                // file, and its upload failed for ever).
                if let landed = try await forgetLocal(superseded.number), landed.id == base.id { base = landed }
            }
            try await redirect(number, to: base, from: source, in: target, as: existing.name)
        } catch {
            unpin(number)
            throw error
        }
        locals.withLock { files in files.update(number) { $0.handles -= 1 } }
        let item = visible(existing)
        tree.withLock { tree in
            // The source's first upload may have landed during the awaits above (and been listed at its old name).
            let sourceID = tree.currentID(inode: inode, else: source.id)
            for id in Set([source.id, sourceID]) { tree.removeFromListing(id: id, folderID: folder.id) }
            tree.rebind(id: sourceID, to: item)
            tree.setParent(id: existing.id, parentInode: parentInode)
        }
        dropIfIdle(number)
    }

    /// Makes local file `number` the next version of Box file `base`, named `name` in `target`, then removes the
    /// source's own Box file (if it had one): the content is journaled for its new place before anything leaves
    /// Box. The name is the one renamed over, not `base`'s: a base taken when an upload landed may carry the name
    /// the file had on Box before a rename here reached Box (model seed 21073).
    private func redirect(
        _ number: UInt64, to base: BoxItem, from source: BoxItem, in target: BoxItem, as name: String
    ) async throws(FSError) {
        guard let before = locals.withLock({ $0.file(number) }) else { throw .badHandle }
        let sourceOnBox = before.base.map { $0.id != base.id } ?? false ? before.base : nil
        locals.withLock { files in
            files.update(number) { file in
                if file.isNewToBox { file.supersedesNewUpload = true }
                file.rebase(on: base)
                file.item.name = name
                file.item.parentID = target.id
            }
        }
        if before.entryID != nil {
            try await redirectUpload(number, entryID: before.entryID, rejournal: true)
        } else {
            try await modify(number, modified: before.item.contentModifiedAt ?? Date()) { _ throws(FSError) in .unchanged }
        }
        guard let sourceOnBox else { return }
        do { try await client.deleteFile(id: sourceOnBox.id) } catch let error as BoxAPIError where error.kind == .notFound {
        } catch {
            // Box out of reach, say: the source's file is a leftover, journaled and removed once Box answers (else
            // it stayed on Box for good under the name it left, and came back at the next listing; model seed 79).
            logger.info("\(source.name) now goes to \(base.name); removing its file from Box failed (\(error)): removed later")
            var left = sourceOnBox
            left.parentID = left.parentID ?? source.parentID
            removeLeftover(Leftover(left), reason: "the file renamed over \(base.name)")
        }
    }
}
