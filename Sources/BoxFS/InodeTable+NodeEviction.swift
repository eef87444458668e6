/// Nodes that follow the working set: past `node_cache_entries` nodes, the kernel is asked to forget the files
/// it looked up least recently (see `FileSystem+NodeEviction`), and its forgets remove them.
///
/// Why files only: the kernel keeps a dentry and its inode for every name it was given until memory runs short,
/// and each is a node here. Invalidating a file's name (`notify_inval_entry`) drops its dentry; an unused FUSE
/// inode goes with its last dentry (FUSE's `drop_inode` drops it at once), and the kernel sends `forget`. A
/// folder is never asked for: the daemon cannot see which folder is a process's working directory, and an
/// invalidated working directory is unhashed, so `getcwd` fails (ENOENT) until its path is looked up again.
extension InodeTable {
    /// The kernel looked `node` up now: a file moves to the back of `useOrder`.
    mutating func noteUse(of node: inout Node) {
        guard node.item.kind != .folder, node.inode != Self.rootInode else { return }
        node.lastUse = useOrder.record(node.inode)
        useOrder.compact(live: nodes.count) { nodes[$0.inode]?.lastUse == $0.number }
    }

    /// Up to `count` files the kernel holds, least recently looked up first, leaving out those `pinned` keeps
    /// (which count as used now, so the next call looks further). At most `4 × count` entries are looked at,
    /// so a call costs the same however many files are pinned. The files stay until the kernel forgets them.
    mutating func leastRecentlyUsedFiles(count: Int, keeping pinned: (Node) -> Bool) -> [Node] {
        var chosen: [Node] = []
        var looked = 0
        while chosen.count < count, looked < 4 * count, let use = useOrder.takeOldest() {
            guard var node = nodes[use.inode], node.lastUse == use.number else { continue }  // stale
            looked += 1
            if pinned(node) {
                noteUse(of: &node)
                nodes[use.inode] = node
            } else {
                node.lastUse = 0  // out of the order until it is looked up again
                nodes[use.inode] = node
                chosen.append(node)
            }
        }
        return chosen
    }
}
