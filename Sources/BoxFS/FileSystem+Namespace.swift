import BoxAPI
import Foundation

/// Folders and deletions happen on Box at once (only file content is written back later), so
/// an error reaches the caller of `mkdir`, `rm` or `rmdir` as an errno.
extension FileSystem {
    /// A new name Box would refuse is refused here, before any Box call, and the reason is logged
    /// (the errno alone rarely says it). `create` and `mkdir` answer EINVAL ("Invalid argument");
    /// `rename` answers EPERM, because GNU `mv` words EINVAL from rename(2) as "cannot move 'a' to a
    /// subdirectory of itself", which would send the user looking for the wrong problem.
    /// A name Box itself refused (rules this side does not check): logged at the default level, and
    /// EPERM for a rename as in `validateName`. Any other failure is returned as it is.
    func refusedName(_ failure: FSError, renaming: Bool = false) -> FSError {
        guard failure.kind == .invalidName || failure.kind == .nameTooLong, failure.message.contains("Box refuses the name")
            || failure.message.contains("too long for Box")
        else { return failure }
        logger.warning("Box refused the name: \(failure.message)")
        return renaming && failure.kind == .invalidName ? FSError(.notPermitted, failure.message) : failure
    }

    func validateName(_ name: String, renaming: Bool = false) throws(FSError) {
        do { try BoxName.validate(name) } catch {
            logger.warning("refused the name: \(error.message)")
            if renaming, error.kind == .invalidName { throw FSError(.notPermitted, error.message) }
            throw error
        }
    }

    public func makeDirectory(parent: UInt64, name: String) async throws(FSError) -> FileAttributes {
        try await refuseControlChange(parent: parent, name: name)
        _ = try requireWriteBack(name)
        try validateName(name)
        let folder = try folderItem(parent)
        try await checkNameFree(name, in: folder, inode: parent)
        let created: BoxItem
        do {
            created = try await retryingAfterOwnChanges(inFolder: folder.id) {
                try await client.createFolder(name: name, parentID: folder.id)
            }
        } catch {
            throw refusedName(FSError(error, context: "creating folder \(name)"))
        }
        let node = tree.withLock { tree in
            tree.upsert(created, inFolder: folder.id)
            _ = tree.store(listing: [], folderID: created.id, at: .now)  // new: empty, no need to ask
            return tree.remember(created, parentInode: parent)
        }
        entriesChanged(in: folder.id)
        return attributes(of: created, inode: node.inode)
    }

    public func unlink(parent: UInt64, name: String) async throws(FSError) {
        try await refuseControlChange(parent: parent, name: name)
        _ = try requireWriteBack(name)
        let (folder, item) = try await child(name, in: parent)
        guard item.kind == .file else { throw .isDirectory(name) }
        try await removeFile(item, from: folder)
        entriesChanged(in: folder.id)
        trashChanged()
    }

    public func removeDirectory(parent: UInt64, name: String) async throws(FSError) {
        try await refuseControlChange(parent: parent, name: name)
        _ = try requireWriteBack(name)
        let (folder, item) = try await child(name, in: parent)
        guard item.kind == .folder else { throw .notDirectory(name) }
        try await removeEmptyFolder(item, from: folder)
        entriesChanged(in: folder.id)
        trashChanged()
    }

    /// The item `name` in folder `parent` (as shown: Box's listing with local files over it).
    func child(_ name: String, in parent: UInt64) async throws(FSError) -> (folder: BoxItem, item: BoxItem) {
        let folder = try folderItem(parent)
        let items = try await listing(of: folder, inode: parent)
        guard let item = items.first(where: { BoxName.same($0.name, name) }) else { throw .notFound(name, in: folder) }
        return (folder, item)
    }

    /// Deletes a file on Box (unless it never got there) and drops its pending upload. Open
    /// handles keep working on the local copy until closed, as POSIX has it; a file open for reading
    /// from Box gets a local copy first, since Box serves no content of a file in its trash.
    func removeFile(_ item: BoxItem, from folder: BoxItem) async throws(FSError) {
        var local = locals.withLock { $0.file(itemID: item.id) }
        if local == nil, handles.withLock({ $0.readsRemotely(itemID: item.id) }) {
            let number = try await localCopy(of: item, empty: false)  // the readers move to it
            local = locals.withLock { $0.file(number) }
        }
        let inode = tree.withLock { $0.inode(forItemID: item.id) }
        // Its upload waits while the file is deleted on Box; one under way finishes first, and the
        // file's node then names what it made (a 404 from our own delete would send it up again).
        let nowID = try await whileUploadHeld(local?.entryID) { () async throws(FSError) -> String? in
            let current = local.flatMap { local in locals.withLock { $0.file(local.number) } }
            // The node's id now (its upload may have landed); the local file's or the listed one's without a node.
            let node = inode.flatMap { inode in tree.withLock { $0.node(inode) } }
            let id = node.map { $0.id.isDetached ? $0.id : NodeID($0.item) } ?? NodeID(itemID: current?.item.id ?? item.id)
            switch id {
            case .local: break  // Box does not have it
            case .detached: break  // deleted or replaced meanwhile: it stands for nothing on Box
            case .box where current?.isNewToBox == true: break  // Box does not have its content's file
            case .box(let boxID):
                do { try await client.deleteFile(id: boxID) } catch let error as BoxAPIError where error.kind == .notFound {
                    // Already gone from Box: the goal is reached.
                } catch {
                    throw FSError(error, context: "deleting \(item.name)")
                }
            }
            if let local { try await forgetLocal(local.number) }
            // The id to drop besides the listed one: none for a node detached meanwhile (it stands for nothing).
            guard let node else { return current?.item.id ?? item.id }
            return node.itemID
        }
        tree.withLock { tree in
            for id in Set([item.id, nowID].compactMap { $0 }) {
                tree.removeFromListing(id: id, folderID: folder.id)
                tree.detach(id: id)
            }
        }
    }

    /// Runs `body`, which changes on Box the file of upload entry `entryID` and drops the entry, with the entry's
    /// upload held (`Uploader.hold`): one under way finishes first (what it made is then known), and none starts
    /// meanwhile (it would meet the change as someone else's). If `body` throws, the entry goes on as before.
    func whileUploadHeld<T>(_ entryID: Int64?, _ body: () async throws(FSError) -> T) async throws(FSError) -> T {
        guard let entryID, let uploader = writeBack?.uploader else { return try await body() }
        await uploader.hold(entryID)
        do { return try await body() } catch {
            await uploader.release(entryID)  // nothing if the entry was dropped
            throw error
        }
    }

    /// A local file whose content no longer goes anywhere: its pending upload is dropped (an upload
    /// under way is stopped, or returned if it landed anyway); it stays readable through handles
    /// already open, and is removed when the last one closes.
    /// Its inode keeps answering with the local file's attributes while handles have it open (see `unlinkedFile`).
    @discardableResult
    func forgetLocal(_ number: UInt64) async throws(FSError) -> BoxItem? {
        let entryID = state.withLock { state in
            let inode = state.locals.file(number).flatMap { state.tree.inode(forItemID: $0.item.id) }
            return state.locals.update(number) { file in file.unlink(inode: inode) }
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
        // Listed anew before Box is asked, but the listing held stays until then (marked stale, as an event marks it):
        // with Box out of reach it is what says whether the folder is empty, and what keeps the folder's files
        // reachable afterwards (dropped, every lookup in the folder failed with EIO until Box answered).
        tree.withLock { $0.listings[item.id]?.isStale = true }
        let inode = tree.withLock { $0.inode(forItemID: item.id) } ?? 0
        guard try await listing(of: item, inode: inode).isEmpty else { throw .notEmpty(item.name) }
        do {
            try await retryingAfterOwnChanges(inFolder: item.id, emptying: true) {
                try await client.deleteFolder(id: item.id, recursive: false)
            }
        } catch {
            throw FSError(error, context: "removing folder \(item.name)")
        }
        tree.withLock { tree in
            tree.removeFromListing(id: item.id, folderID: folder.id)
            tree.invalidateListing(folderID: item.id)
            tree.detach(id: item.id)
        }
    }
}
