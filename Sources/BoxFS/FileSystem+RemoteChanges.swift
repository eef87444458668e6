import BoxAPI

/// A name the kernel must forget in a folder (`deletedChild` nil: look it up again; else it is gone and the
/// kernel may hold that inode for it).
public struct KernelEntryChange: Sendable, Equatable {
    public var parent: UInt64
    public var name: String
    public var deletedChild: UInt64?
}

/// Changes made elsewhere on Box, reported by its event stream (`EventFollower`), applied to the tree.
extension FileSystem {
    /// Applies a page of events: drops the listings they touch, tells the kernel which names and inodes to
    /// forget, then lists again the folders of items the kernel holds, so that their inodes (`fstat` of an
    /// open file, a new version's pages) are brought up to date at once. Events that repeat what the tree
    /// already holds (the mount's own changes) do nothing. Returns how many events changed something.
    @discardableResult
    public func applyRemoteChanges(_ events: [BoxEvent]) async -> Int {
        var applied = 0
        var refresh: [String: UInt64] = [:]
        // Something was deleted or restored elsewhere: the trash view asks Box again at its next visit.
        if events.contains(where: { $0.removesItem || $0.eventType.hasPrefix("ITEM_UNDELETE") }) { trashChanged() }
        let watched = !watchers.isEmpty
        for event in events {
            guard let item = event.item, item.id != singleFileID else { continue }
            // What a `boxfs watch` shows is worked out before the change is applied: the tree still has the old path.
            var change = watched ? watchChange(for: event, item: item) : nil
            defer { if let change { publish(change, itemID: item.id) } }
            if !event.removesItem, isUploadingNewFile(like: item) {
                change?.thisMount = true
                continue
            }
            guard let effect = tree.withLock({ $0.applyRemoteChange(item, removed: event.removesItem) }) else {
                continue
            }
            applied += 1
            logger.debug("event \(event.eventType) on \(item.kind.rawValue) \(item.id): listings of \(effect.folderIDs) dropped")
            notifyKernel(effect, itemID: item.id)
            if effect.itemInode != nil, !event.removesItem, let parentID = item.parentID,
               let parentInode = tree.withLock({ $0.inode(forItemID: parentID) }) {
                refresh[parentID] = parentInode
            }
        }
        // Downloads and previews (the pinner's own among them) change nothing a pin covers.
        pinner?.noticeChanges(events.filter { !["ITEM_DOWNLOAD", "ITEM_PREVIEW"].contains($0.eventType) }.compactMap(\.item))
        for (folderID, inode) in refresh {
            guard let node = tree.withLock({ $0.node(inode) }), node.itemID == folderID else { continue }
            let folder = node.item
            do { _ = try await listing(of: folder, inode: inode) } catch {
                logger.debug("listing \(folder.name) again after an event failed: \(error.message)")
            }
        }
        return applied
    }

    /// The event names a file the tree does not know by id, under the name and in the folder of a local file new
    /// to Box: the mount's own upload, whose event came back before the uploader's answer was applied (that puts
    /// it in place), or a file made elsewhere under the same name, which the local file shadows anyway until its
    /// upload meets it (as a conflict). Either way, dropping the folder's listing would show nothing new.
    /// (A file the tree knows by id, or a listing holds, is not skipped: it may have been renamed onto that name.)
    func isUploadingNewFile(like item: BoxItem) -> Bool {
        guard item.kind == .file, let parentID = item.parentID else { return false }
        return state.withLock { state in
            state.locals.hasNewFile(named: item.name, in: parentID)
                && state.tree.inode(forItemID: item.id) == nil && state.tree.listingsHolding(id: item.id).isEmpty
        }
    }

    /// The event stream lost track (a position Box no longer has): every cached listing is fetched again.
    public func dropAllListings() {
        tree.withLock { $0.dropAllListings() }
    }

    /// Updates the event stream's state shown by `boxfs status` (and whether listings outlive `dir_cache_ttl`).
    public func updateEventStream(_ change: @Sendable (inout EventStreamState) -> Void) {
        eventStream.withLock { change(&$0) }
    }

    public var eventStreamState: EventStreamState { eventStream.withLock { $0 } }

    /// Hands the effect's invalidations to the adapter (which sends them from a thread of its own). A file
    /// with local content keeps its local view: its pages are not dropped.
    private func notifyKernel(_ effect: RemoteChangeEffect, itemID: String) {
        let hasLocalContent = locals.withLock { $0.file(itemID: itemID) != nil }
        sendToKernel(effect, keepingPagesOf: hasLocalContent ? Set(effect.itemInode.map { [$0] } ?? []) : [])
    }

    /// Sends the effect's invalidations, except for the inodes in `keep` (files with local content).
    func sendToKernel(_ effect: RemoteChangeEffect, keepingPagesOf keep: Set<UInt64>) {
        if let invalidate = kernel.invalidator.withLock({ $0 }) {
            for inode in effect.inodes where !keep.contains(inode) { invalidate(inode) }
        }
        guard let invalidateEntry = kernel.entryInvalidator.withLock({ $0 }) else { return }
        for entry in effect.entries { invalidateEntry(KernelEntryChange(parent: entry.parent, name: entry.name)) }
        for gone in effect.deletions {
            invalidateEntry(KernelEntryChange(parent: gone.parent, name: gone.name, deletedChild: gone.child))
        }
    }
}
