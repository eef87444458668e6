import BoxAPI
import Foundation
import WriteBack

extension FileSystem {
    /// Starts the write side: shows every journaled file left by an earlier run (a crash, a kill, an
    /// unmount that timed out) at its place, then lets the uploader send them and follows its events.
    /// Returns how many journaled uploads were found.
    @discardableResult
    public func startWriteBack() async throws(FSError) -> Int {
        guard let writeBack else { return 0 }
        let pending: [UploadEntry]
        do { pending = try writeBack.journal.pending() } catch { throw FSError(error, context: "reading the journal") }
        for entry in pending { recover(entry, writeBack: writeBack) }
        removeOrphanStagingFiles(keeping: Set(pending.map(\.stagingPath)), in: writeBack.stagingDirectory)
        let events = writeBack.uploader.events
        Task { [self] in
            for await event in events { await handle(event) }
        }
        do { return try await writeBack.uploader.start() } catch {
            throw FSError(error, context: "resuming journaled uploads")
        }
    }

    /// Sends what is pending now and waits up to `timeout`; returns how many uploads are left (they
    /// stay journaled for the next mount).
    public func finishUploads(timeout: Duration) async -> Int {
        guard let writeBack else { return 0 }
        let left = await writeBack.uploader.drain(timeout: timeout)
        await writeBack.uploader.shutdown()
        return left
    }

    private func recover(_ entry: UploadEntry, writeBack: WriteBackContext) {
        let staging: StagingFile
        do { staging = try StagingFile(path: entry.stagingPath, create: false) } catch {
            logger.error("journaled upload of \"\(entry.target.name)\" lost its local copy: \(error)")
            return
        }
        let modified = entry.contentModifiedAt ?? Date()
        locals.withLock { files in
            let number = files.reserveNumber()
            var base: BoxItem?
            var id = LocalFiles.localID(number)
            if case .newVersion(let fileID, let parentID, let name, let etag, let sha1) = entry.target {
                base = BoxItem(id: fileID, kind: .file, name: name, etag: etag, sha1: sha1, parentID: parentID)
                id = fileID
            }
            let item = BoxItem(
                id: id, kind: .file, name: entry.target.name, size: staging.size, createdAt: entry.createdAt,
                modifiedAt: modified, contentCreatedAt: entry.createdAt, contentModifiedAt: modified,
                etag: base?.etag, sha1: base?.sha1, parentID: entry.target.parentID)
            files.add(LocalFiles.File(number: number, staging: staging, item: item, base: base, entryID: entry.id))
        }
    }

    /// Staging files no journal entry names are leftovers of copies never written (the daemon
    /// stopped while they were open): they hold nothing Box lacks.
    private func removeOrphanStagingFiles(keeping kept: Set<String>, in directory: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names {
            let path = directory.appendingPathComponent(name).path
            if !kept.contains(path) { Glibc.unlink(path) }
        }
    }

    /// Keeps the tree and the local files in step with what the uploader achieved.
    func handle(_ event: UploaderEvent) async {
        switch event {
        case .uploaded(let entryID, let item, _, _, let isFinal):
            await uploaded(item, entryID: entryID, isFinal: isFinal)
        case .conflict(let entryID, let original, let copyName):
            conflicted(entryID: entryID, original: original, copyName: copyName)
        case .stray(_, let item):
            await deleteFromBox(item, reason: "an upload that landed under a name since replaced")
        case .failed:
            break  // logged and kept by the uploader; shown by `boxfs status`
        }
    }

    private func uploaded(_ item: BoxItem, entryID: Int64, isFinal: Bool) async {
        let update = locals.withLock { files -> (old: BoxItem, now: BoxItem)? in
            guard let file = files.file(entryID: entryID) else { return nil }
            let old = file.item
            files.update(file.number) { file in
                file.base = item
                file.item.id = item.id
                file.item.etag = item.etag
                file.item.sha1 = item.sha1
                file.item.fileVersionID = item.fileVersionID
                file.item.createdAt = item.createdAt
                if isFinal { file.entryID = nil }
            }
            return (old, files.file(file.number)!.item)
        }
        guard let update else {
            // Deleted here while the upload ran, and it landed anyway.
            if isFinal { await deleteFromBox(item, reason: "a file deleted while it was uploading") }
            return
        }
        let wanted = update.now
        tree.withLock { tree in
            tree.rebind(id: update.old.id, to: wanted)
            var listed = item
            listed.name = wanted.name
            listed.parentID = wanted.parentID
            if let parentID = wanted.parentID { tree.upsert(listed, inFolder: parentID) }
        }
        if let number = locals.withLock({ $0.file(itemID: item.id)?.number }) { dropIfIdle(number) }
        if item.name != wanted.name || item.parentID != wanted.parentID {
            // Renamed or moved here while its upload ran: bring Box's name in line.
            do {
                _ = try await client.updateFile(id: item.id, name: wanted.name, parentID: wanted.parentID)
            } catch {
                logger.error("\"\(item.name)\" reached Box, but renaming it to \"\(wanted.name)\" failed: \(error)")
            }
        }
    }

    /// The file changed on Box while written here: its local content becomes a new file `copyName`
    /// beside it, and the original name shows Box's version again.
    private func conflicted(entryID: Int64, original: UploadTarget, copyName: String) {
        let moved = locals.withLock { files -> (old: String, now: BoxItem)? in
            guard let file = files.file(entryID: entryID) else { return nil }
            return files.update(file.number) { file in
                let old = file.item.id
                file.base = nil
                file.item.id = LocalFiles.localID(file.number)
                file.item.name = copyName
                file.item.parentID = original.parentID
                file.item.etag = nil
                file.item.sha1 = nil
                file.item.fileVersionID = nil
                return (old, file.item)
            }
        }
        guard let moved else { return }
        let inode = tree.withLock { tree -> UInt64? in
            let inode = tree.inode(forItemID: moved.old)
            tree.invalidateListing(folderID: original.parentID)
            return inode
        }
        if let inode, let invalidate = invalidator.withLock({ $0 }) { Task.detached { invalidate(inode) } }
        logger.warning("\"\(original.name)\" changed on Box while written here; the local content is \"\(copyName)\"")
    }

    private func deleteFromBox(_ item: BoxItem, reason: String) async {
        do { try await client.deleteFile(id: item.id, ifMatch: item.etag) } catch {
            logger.warning("could not remove \(reason) (\(item.name), id \(item.id)) from Box: \(error)")
        }
    }
}
