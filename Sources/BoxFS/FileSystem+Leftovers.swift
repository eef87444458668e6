import BoxAPI
import Foundation
import SystemCalls
import WriteBack

/// Box files of the mount's own making that nobody wants: an upload that landed under a name since replaced,
/// or of a file deleted or renamed over meanwhile. Each is journaled before Box is asked to delete it and
/// forgotten once Box confirms, so neither a kill nor a failed delete leaves it holding a name the mount shows
/// free: a later file of that name would meet it as a 409 and become a conflicted copy nobody caused. Those
/// left by an earlier run are removed when the write side starts (before any upload to their folder: the
/// uploader settles a folder's cleanups first), and one met as a 409 is removed then (`UploadAttempt`).
extension FileSystem {
    /// How long a removal that failed for want of Box (offline, 5xx, 429 after the client's own retries)
    /// waits before it is tried again.
    static let leftoverRetryDelay: Duration = .seconds(60)

    /// Removes `leftover` from Box, then from the cached listing of its folder (a listing fetched while it was
    /// there, e.g. after its upload's event, would otherwise show it until the TTL: a name whose reads fail
    /// with ENOENT). A namespace operation in its folder waits for the removal (`BoxCleanups`).
    func removeLeftover(_ leftover: Leftover, reason: String) {
        let logger = self.logger, journal = writeBack?.journal
        locals.withLock { _ = $0.leftovers.insert(leftover.fileID) }
        cleanups.start(in: Set([leftover.parentID].compactMap { $0 })) { [self] in
            do { try await journal?.noteLeftover(leftover) } catch {
                logger.warning("could not journal the removal of \(reason) (\(leftover.name)): \(error)")
            }
            switch await leftover.remove(client: client, journal: journal) {
            case .removed:
                break
            case .changedSince:
                logger.info("\(reason) (\(leftover.name), id \(leftover.fileID)) changed on Box since; kept")
                keep(leftover)
                return
            case .retryLater(let error):
                logger.warning(
                    "could not remove \(reason) (\(leftover.name), id \(leftover.fileID)) from Box: \(error); retrying later")
                retryLeftover(leftover, reason: reason)
                return
            case .interrupted:
                return  // the mount is stopping: the journal keeps it for the next mount
            case .refused(let error):
                // Refused for good (e.g. locked by someone): it stays on Box, so it is shown again, a file like any
                // other, rather than hidden while it holds its name.
                logger.warning("could not remove \(reason) (\(leftover.name), id \(leftover.fileID)) from Box: \(error); kept")
                keep(leftover)
                return
            }
            forgetListed(leftover.item)
            locals.withLock { _ = $0.leftovers.remove(leftover.fileID) }
        }
    }

    /// Removes, among `items` of folder `folderID`, the files the mount hides because an upload whose answer was
    /// lost may have made them (`UnansweredUploads`): a namespace call that met one (409, or a folder not empty)
    /// would otherwise fail for a name or a folder the mount shows free (model seed 31025: a rename to the name a
    /// renamed file's lost-answer upload had landed under, `EEXIST`). Such a file holds content its entry sent
    /// before and still has: the entry's next attempt sends it where it aims now. The entry's upload is held
    /// meanwhile, so no attempt of it takes the file as its own while it goes.
    func removeUnansweredStrays(_ items: [BoxItem], inFolder folderID: String) async {
        guard let uploader = writeBack?.uploader else { return }
        for var item in items where item.kind == .file {
            guard let entryID = uploader.unanswered.owner(name: item.name, sha1: item.sha1, inFolder: folderID) else {
                continue
            }
            await uploader.hold(entryID)
            // Still nobody's here (its answer was not applied meanwhile, giving a local file its id)?
            if uploader.unanswered.owner(name: item.name, sha1: item.sha1, inFolder: folderID) == entryID,
                locals.withLock({ $0.file(itemID: item.id) }) == nil
            {
                item.parentID = folderID
                removeLeftover(Leftover(item), reason: "an upload whose answer was lost, at a name since left")
                await cleanups.settle([folderID])
            }
            await uploader.release(entryID)
        }
    }

    /// Removes what an earlier run journaled as leftovers and had not removed when it stopped.
    func removeJournaledLeftovers(_ journal: UploadJournal) async {
        let leftovers: [Leftover]
        // A read of SQLite: off Swift's cooperative pool.
        do { leftovers = try await Syscall.offThePool { () throws in try journal.leftovers() } } catch {
            logger.warning("could not read the journal's leftovers: \(error)")
            return
        }
        for leftover in leftovers { removeLeftover(leftover, reason: "a leftover upload of an earlier run") }
    }

    /// A leftover that stays on Box: no longer removed, hidden or journaled, and its folder listed again.
    private func keep(_ leftover: Leftover) {
        locals.withLock { _ = $0.leftovers.remove(leftover.fileID) }
        if let parentID = leftover.parentID { tree.withLock { $0.invalidateListing(folderID: parentID) } }
    }

    /// Tries the removal again `leftoverRetryDelay` later, or as soon as Box answers again when it failed with Box
    /// out of reach (as the waiting uploads are tried then).
    private func retryLeftover(_ leftover: Leftover, reason: String) {
        let wasOffline = client.connectivity.offline != nil
        Task { [weak self] in
            let deadline = ContinuousClock.now + Self.leftoverRetryDelay
            while ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(wasOffline ? 200 : 60_000))
                guard let self else { return }
                if wasOffline, self.client.connectivity.offline == nil { break }
            }
            self?.removeLeftover(leftover, reason: reason)
        }
    }

    /// Takes a file Box no longer holds out of its folder's cached listing, and tells the kernel.
    private func forgetListed(_ item: BoxItem) {
        guard let parentID = item.parentID else { return }
        let parentInode = tree.withLock { tree -> UInt64? in
            let listed = tree.listings[parentID]?.items.contains { $0.id == item.id } == true
            tree.removeFromListing(id: item.id, folderID: parentID)  // also noted for listing fetches in flight
            return listed ? tree.inode(forItemID: parentID) : nil
        }
        if let parentInode, let invalidateEntry = kernel.entryInvalidator.withLock({ $0 }) {
            invalidateEntry(KernelEntryChange(parent: parentInode, name: item.name))
        }
    }
}
