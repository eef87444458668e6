import BoxAPI
import Foundation
import SystemCalls
import WriteBack

extension FileSystem {
    /// Starts the write side: shows every journaled file left by an earlier run (a crash, a kill, an
    /// unmount that timed out) at its place, then lets the uploader send them and follows its events.
    /// Returns how many journaled uploads were found.
    @discardableResult
    public func startWriteBack() async throws(FSError) -> Int {
        guard let writeBack else { return 0 }
        // Reading the journal (and dropping an entry whose local copy is gone) waits on SQLite: off Swift's pool.
        do {
            try await Syscall.offThePool { [self] () throws in
                let pending = try writeBack.journal.pending()
                for entry in pending { recover(entry, writeBack: writeBack) }
                removeOrphanStagingFiles(keeping: Set(pending.map(\.stagingPath)), in: writeBack.stagingDirectory)
            }
        } catch {
            throw FSError(error, context: "reading the journal")
        }
        await removeJournaledLeftovers(writeBack.journal)
        // Synchronously, inside the uploader: the core's view of each entry is never behind it.
        await writeBack.uploader.setEventSink { [self] event in handle(event) }
        await writeBack.uploader.setBeforeSending { [cleanups] folderID in await cleanups.settle([folderID]) }
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
        await finishSeeding()
        return left
    }

    private func recover(_ entry: UploadEntry, writeBack: WriteBackContext) {
        let staging: StagingFile
        do { staging = try StagingFile(path: entry.stagingPath, create: false) } catch {
            logger.error("journaled upload of \"\(entry.target.name)\" lost its local copy: \(error); dropped")
            try? writeBack.journal.remove(id: entry.id)
            return
        }
        let modified = entry.contentModifiedAt ?? Date()
        locals.withLock { files in
            let number = files.reserveNumber()
            var base: BoxItem?
            var id = LocalFiles.localID(number)
            // Box ids are numeric; anything else would be an id of this run's own making.
            if case .newVersion(let fileID, let parentID, let name, let etag, let sha1) = entry.target,
                !fileID.isEmpty, fileID.allSatisfy(\.isNumber)
            {
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
            if !kept.contains(path) { try? Syscall.unlink(path) }
        }
    }

    /// Keeps the tree and the local files in step with what the uploader achieved. Runs inside the
    /// uploader (see `setEventSink`), so it only does bookkeeping; calls to Box go to tasks.
    func handle(_ event: UploaderEvent) {
        switch event {
        case .uploaded(let entryID, let item, let target, _, let isFinal):
            uploaded(item, entryID: entryID, target: target, isFinal: isFinal)
        case .conflict(let entryID, let original, let copyName):
            conflicted(entryID: entryID, original: original, copyName: copyName)
        case .recreated(let entryID, _):
            becameNewFile(entryID: entryID)
        case .stray(_, let item):
            removeLeftover(Leftover(item), reason: "an upload that landed under a name since replaced")
        case .keptAside(let entryID, _, _, let isFinal):
            if isFinal { keptAside(entryID: entryID) }
        case .failed:
            break  // logged and kept by the uploader; shown by `boxfs status`
        }
    }

    private func uploaded(_ item: BoxItem, entryID: Int64, target: UploadTarget, isFinal: Bool) {
        let outcome = state.withLock { $0.uploadLanded(item, entryID: entryID, target: target, isFinal: isFinal) }
        switch outcome {
        case .orphan:
            // Deleted here while the upload ran, and a new file landed anyway.
            if isFinal, target.fileID == nil { removeLeftover(Leftover(item), reason: "a file deleted while it was uploading") }
        case .redirected(let deleteLanded):
            if deleteLanded { removeLeftover(Leftover(item), reason: "a temporary file renamed over another file") }
        case .rebased(_, let wanted):
            if let number = locals.withLock({ $0.file(itemID: item.id)?.number }) { dropIfIdle(number) }
            guard item.name != wanted.name || item.parentID != wanted.parentID else { return }
            // Renamed or moved here while its upload ran, it landed at the old place. The uploader keeps the
            // entry, and with it the local file (shown over Box's old name), until an attempt of its own has found
            // the file moved (which survives a crash); the move is also made at once, as one of the folders' own
            // follow-ups (which an rmdir of the old folder waits for).
            let folders = Set([item.parentID, wanted.parentID].compactMap { $0 })
            cleanups.start(in: folders) { [self] in
                do {
                    let moved = try await client.updateFile(id: item.id, name: wanted.name, parentID: wanted.parentID)
                    state.withLock { state in
                        if let old = item.parentID, old != moved.parentID { state.tree.removeFromListing(id: item.id, folderID: old) }
                        // Listed again only while its file is still shown here: an unlink or a replacing rename
                        // that came meanwhile has taken it out, and must not find it back.
                        let shown = state.locals.file(itemID: item.id).map { !$0.unlinked } ?? false
                        if shown, let parentID = moved.parentID { state.tree.upsert(moved, inFolder: parentID) }
                    }
                } catch {
                    logger.info("\"\(item.name)\" reached Box; renaming it to \"\(wanted.name)\" is left to its upload: \(error)")
                }
            }
        }
    }

    /// The file's folder is gone from Box and its content is kept in the recovery place: the entry is done with, and
    /// the local file goes once nobody has it open (as after an upload that landed).
    private func keptAside(entryID: Int64) {
        let number = state.withLock { state -> UInt64? in
            guard let file = state.locals.file(entryID: entryID) else { return nil }
            state.locals.update(file.number) { $0.uploadEnded(entryID) }
            return file.number
        }
        if let number { dropIfIdle(number) }
    }

    /// The Box file the local content was a version of is gone from Box: it goes up as a new file (see
    /// `CoreState.uploadBecameNewFile`).
    private func becameNewFile(entryID: Int64) {
        state.withLock { $0.uploadBecameNewFile(entryID: entryID) }
    }

    /// The file changed on Box while written here: its local content becomes a new file `copyName`
    /// beside it, and the original name shows Box's version again (see `CoreState.uploadConflicted`).
    private func conflicted(entryID: Int64, original: UploadTarget, copyName: String) {
        let (moved, inode) = state.withLock { $0.uploadConflicted(entryID: entryID, original: original, copyName: copyName) }
        guard moved else { return }
        if let inode, let invalidate = kernel.invalidator.withLock({ $0 }) { invalidate(inode) }
        logger.warning("\"\(original.name)\" changed on Box while written here; the local content is \"\(copyName)\"")
    }
}
