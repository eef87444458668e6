import BoxAPI
import Foundation
import SystemCalls
import Transfers
import WriteBack

extension FileSystem {
    /// The write side, or EROFS on a read-only mount.
    func requireWriteBack(_ what: String) throws(FSError) -> WriteBackContext {
        guard let writeBack else { throw .readOnly(what) }
        return writeBack
    }

    /// The local copy of a Box file, made once however many open it at once: the whole content
    /// fetched (through the block cache, checked against Box's SHA-1), or nothing when `empty`
    /// (opened with O_TRUNC, truncated to zero). Returns its `LocalFiles` number.
    func localCopy(of item: BoxItem, empty: Bool) async throws(FSError) -> UInt64 {
        if let number = locals.withLock({ $0.file(itemID: item.id)?.number }) { return number }
        let writeBack = try requireWriteBack(item.name)
        do {
            return try await localCopies.run(item.id) { [self] in
                if let number = locals.withLock({ $0.file(itemID: item.id)?.number }) { return number }
                // `item` was taken before: an upload of this file may have landed since and its local copy been let
                // go of, and then its node holds the version Box has now, the one to copy (model seed 22170: Box's
                // older item was fetched, and Box's newer, shorter content failed the read with EIO).
                let (inode, current) = tree.withLock { tree in
                    let inode = tree.inode(forItemID: item.id)
                    return (inode, inode.flatMap { tree.node($0)?.item })
                }
                var item = current ?? item
                let staging = try StagingFile(path: writeBack.newStagingPath(), create: true)
                do {
                    if !empty { item = try await copyContent(of: item, into: staging) }
                } catch {
                    staging.remove()
                    throw error
                }
                var local = item
                if empty { local.size = 0 }
                // Handles reading the Box file read the local copy from now on, and count as its handles: it is
                // the file they opened, and it must outlive an unlink while they have it open. Not those open on an
                // inode another file was renamed over (the Box file's next version is that file's content): they
                // keep reading the version they opened (model seed 709055300).
                return state.withLock { state in
                    let number = state.locals.reserveNumber()
                    state.locals.add(LocalFiles.File(number: number, staging: staging, item: local, base: item))
                    let readers = state.handles.moveRemoteReaders(ofItemID: item.id, onInode: inode, toLocal: number)
                    state.locals.update(number) { $0.handles += readers }
                    return number
                }
            }
        } catch {
            throw FSError(error, context: "making a local copy of \(item.name)")
        }
    }

    /// Copies the content of `item` into `staging`, and answers the item it is the content of. When Box's content
    /// is no longer the version `item` names (fewer bytes, or another SHA-1: it changed since `item` was listed,
    /// by this mount's own upload landing or elsewhere), Box is asked for the file as it is now and that is
    /// copied instead, once: a second mismatch (wrong bytes from the server) is an error.
    private func copyContent(of item: BoxItem, into staging: StagingFile) async throws -> BoxItem {
        guard item.size > 0 else { return item }
        await waitForSeeding(of: item.id)
        do {
            try await fetch(item, into: staging)
            return item
        } catch TransferError.shortRead, TransferError.checksumMismatch {
            let now = try await client.file(id: item.id)
            logger.info("\(item.name) changed on Box while it was copied here; copying the version Box has now",
                        metadata: ["file": "\(item.id)"])
            try staging.truncate(to: 0)
            if now.size > 0 { try await fetch(now, into: staging) }
            var copied = now
            copied.name = item.name
            copied.parentID = item.parentID
            return copied
        }
    }

    /// Copies a Box file's whole content into `staging`, in large sequential reads.
    private func fetch(_ item: BoxItem, into staging: StagingFile) async throws {
        let file = RemoteFile(id: item.id, version: item.contentVersion, size: item.size, sha1: item.sha1)
        let reader = FileReader(file: file, store: store, logger: logger)
        let chunk = 8 << 20
        var offset: Int64 = 0
        while offset < item.size {
            let data = try await reader.read(offset: offset, length: chunk)
            guard !data.isEmpty else { throw FSError(.io, "\(item.name): Box sent fewer bytes than its size") }
            try withRoom(for: data.count) { () throws(FSError) in try staging.write(data, offset: offset) }
            offset += Int64(data.count)
        }
    }

    /// The journal entry of a local file, recorded (durably) the first time its content changes.
    /// nil for a file that was deleted while open: what is written to it goes nowhere.
    func ensureEntry(_ number: UInt64) async throws(FSError) -> Int64? {
        guard let file = locals.withLock({ $0.file(number) }) else { throw .badHandle }
        if file.unlinked { return nil }
        if let entryID = file.entryID { return entryID }
        let writeBack = try requireWriteBack("file")
        do {
            return try await journaling.run(number) { [self] in
                guard let file = locals.withLock({ $0.file(number) }), !file.unlinked else { return nil }
                if let entryID = file.entryID { return entryID }
                let entry = try await withRoom(for: 0) {
                    try await writeBack.journal.recordGrouped(
                        stagingPath: file.staging.path, target: file.target, contentModifiedAt: file.item.contentModifiedAt,
                        folderPath: mountPath(ofFolder: file.target.parentID))
                }
                try await writeBack.uploader.fileOpened(entry.id)
                let kept = locals.withLock { files in
                    files.update(number) { file in file.journaled(entry.id) }
                }
                if kept != true {
                    try await writeBack.uploader.discard(entry.id)  // deleted meanwhile
                    return nil
                }
                return entry.id
            }
        } catch {
            throw FSError(error, context: "recording a change in the upload journal")
        }
    }

    /// How a change moves the end of a file.
    enum SizeChange {
        case unchanged
        /// A write: the file ends at least here (concurrent writes may each extend it).
        case atLeast(Int64)
        /// A truncate.
        case exactly(Int64)
    }

    /// Changes a local file's content or times: journals it first, then applies `change`. With no
    /// writer holding the file open (a truncate or touch by path), the uploader is told it was
    /// opened and closed, so the change goes up after the usual delay and a running upload of older
    /// content does not count as the last. `explicitTime`: the time was set (utimens), so it is
    /// written to the journal at once rather than at the last close.
    func modify(
        _ number: UInt64, modified: Date = Date(), explicitTime: Bool = false,
        _ change: (StagingFile) throws(FSError) -> SizeChange
    ) async throws(FSError) {
        let writeBack = try requireWriteBack("file")
        guard var entryID = try await ensureEntry(number) else {
            // Deleted while open: the bytes land in the local copy only, as POSIX has it.
            guard let staging = locals.withLock({ $0.file(number)?.staging }) else { throw .badHandle }
            let sizeChange = try change(staging)
            locals.withLock { files in files.update(number) { $0.apply(sizeChange, modified: modified) } }
            return
        }
        guard let file = locals.withLock({ $0.file(number) }) else { throw .badHandle }
        // A change by path counts as a writer until its close is sent: a release racing it then cannot
        // close the entry (and start an upload) between this `fileOpened` and the change.
        let byPath = locals.withLock { files in
            files.update(number) { file -> Bool in
                guard file.writers == 0 else { return false }
                file.writers += 1
                return true
            }
        } ?? false
        /// Gives up the writer this change counted; false when the local file is gone.
        func dropWriter() -> Bool {
            byPath && locals.withLock { files in files.update(number) { $0.writers -= 1 } } != nil
        }
        // The close that pairs with this change's open is sent whatever happens, so a failed change never
        // leaves the entry open (and so never uploaded).
        func closeByPath() async throws {
            if dropWriter() { try await writeBack.uploader.fileClosed(entryID, reopened: hasWriters(number)) }
        }
        do {
            var stillJournaled = true
            do {
                if byPath { stillJournaled = try await writeBack.uploader.fileOpened(entryID) }
            } catch {
                _ = dropWriter()
                throw error
            }
            if !stillJournaled {
                // Its upload finished meanwhile: this change needs an entry of its own.
                locals.withLock { $0.forgetEntry(entryID, of: number) }
                guard let fresh = try await ensureEntry(number) else {
                    _ = dropWriter()
                    return
                }
                entryID = fresh
            }
            let sizeChange: SizeChange
            do {
                sizeChange = try change(file.staging)
                locals.withLock { files in files.update(number) { $0.apply(sizeChange, modified: modified) } }
                // The journal's commit and the staging file's fsync wait on the disk: off Swift's cooperative pool.
                if explicitTime || byPath {
                    let staging = file.staging
                    try await Syscall.offThePool { [self] () throws in
                        try persistModifiedTime(number)
                        if byPath { try staging.sync() }
                    }
                }
            } catch {
                try? await closeByPath()
                throw error
            }
            try await closeByPath()
        } catch {
            throw FSError(error, context: "changing \(file.item.name)")
        }
    }

    /// Writes the file's current mtime to its journal entry. The time is read when the journal commits the write
    /// (in its order), so a close racing a `utimens` can never leave the older time in the journal.
    func persistModifiedTime(_ number: UInt64) throws {
        guard let journal = writeBack?.journal,
              let entryID = locals.withLock({ $0.file(number)?.entryID }) else { return }
        try journal.setContentModifiedAt(id: entryID) { [self] in
            locals.withLock { files -> Date?? in
                guard let file = files.file(number), file.entryID == entryID else { return nil }
                return .some(file.item.contentModifiedAt)
            }
        }
    }
}

extension LocalFiles.File {
    /// What the kernel is shown after a change: the new end of the file and its times.
    mutating func apply(_ sizeChange: FileSystem.SizeChange, modified: Date) {
        switch sizeChange {
        case .unchanged: break
        case .atLeast(let end): item.size = max(item.size, end)
        case .exactly(let size): item.size = size
        }
        item.contentModifiedAt = modified
        item.modifiedAt = Date()
    }
}
