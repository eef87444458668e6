import Dispatch
import Synchronization

/// When the kernel is asked to forget files, to keep the nodes near `node_cache_entries` (see
/// `InodeTable+NodeEviction`).
extension FileSystem {
    /// One pass at a time, and the files the last one asked for (until the kernel forgets them they still
    /// count among the nodes, and must not make the next pass ask for as many others).
    struct NodeEvictionState {
        var running = false
        var lastAsked: [UInt64] = []
    }

    /// A node was made and the tree holds `nodeCount`: past the budget, a pass runs on a queue of its own (never
    /// a FUSE thread), unless one is running.
    func keepNodesWithinBudget(nodeCount: Int) {
        guard nodeCount > options.nodeCacheEntries else { return }
        let start = nodeEviction.withLock { state -> Bool in
            guard !state.running else { return false }
            state.running = true
            return true
        }
        guard start else { return }
        DispatchQueue.global(qos: .utility).async { [weak self] in self?.askKernelToForgetFiles() }
    }

    /// Asks the kernel to forget the least recently looked up files, down to nine tenths of the budget (so a
    /// pass is paid once per tenth of it), leaving those it may not (`NodePins`). The names are handed to the
    /// kernel notifier's queue, which sends `notify_inval_entry` outside any FUSE request and the tree's lock
    /// (the kernel takes the folder's lock to drop the name). Once they were sent another pass looks again (nodes
    /// made meanwhile), and the passes end when the nodes, less those asked for and not forgotten yet, are
    /// within nine tenths of the budget or nothing more may be asked for.
    private func askKernelToForgetFiles() {
        let budget = options.nodeCacheEntries
        let lastAsked = nodeEviction.withLock { $0.lastAsked }
        let chosen = state.withLock { state -> [InodeTable.Node] in
            let stillHeld = lastAsked.count { state.tree.nodes[$0] != nil }
            let excess = state.tree.nodes.count - stillHeld - (budget - budget / 10)
            guard excess > 0 else { return [] }
            let pins = NodePins(openItemIDs: state.handles.remotelyReadItemIDs, locals: state.locals)
            return state.tree.leastRecentlyUsedFiles(count: excess) { pins.pin($0) }
        }
        let invalidate = kernel.entryInvalidator.withLock { $0 }
        let barrier = kernel.kernelBarrier.withLock { $0 }
        guard !chosen.isEmpty, let invalidate, let barrier else {
            nodeEviction.withLock { $0.running = false }
            return
        }
        logger.debug("nodes over \(budget): the kernel is asked to forget \(chosen.count) files")
        for node in chosen { invalidate(KernelEntryChange(parent: node.parentInode, name: node.item.name)) }
        let asked = chosen.map(\.inode)
        barrier { [weak self] in
            guard let self else { return }
            nodeEviction.withLock { $0.lastAsked = asked }
            DispatchQueue.global(qos: .utility).async { [weak self] in self?.askKernelToForgetFiles() }
        }
    }
}

/// Files whose names the kernel must keep: one open (reading from Box, or with local content), one with local
/// content (being written, or waiting for upload: `LocalFiles`). A file being renamed is safe without a pin: the
/// kernel holds its folders' locks for the rename, and `notify_inval_entry` waits for them.
private struct NodePins {
    let openItemIDs: Set<String>
    /// The local files as they are under the state lock the pass holds.
    let locals: LocalFiles

    func pin(_ node: InodeTable.Node) -> Bool {
        guard let id = node.itemID else { return false }
        return openItemIDs.contains(id) || locals.file(itemID: id) != nil
    }
}
