import BoxFS
import CFuse
import Foundation

/// The libfuse low-level operations table. Each entry is a C callback that copies its arguments and
/// hands the work to `FUSEDispatcher.serve`; replies come from the task.
enum FUSEOperations {
    static func table() -> fuse_lowlevel_ops {
        var ops = fuse_lowlevel_ops()
        ops.`init` = { _, conn in FUSEOperations.configure(conn) }
        ops.lookup = { req, parent, name in
            let name = KernelName(name!)
            let dispatcher = FUSEDispatcher.from(req)
            // A fresh listing answers on this thread; only a folder that must be listed (again) needs a task.
            let cached = dispatcher.answerNow(req, "lookup") { request, fs throws(FSError) -> Bool in
                guard let attributes = try fs.lookupShowingLinksInFreshListing(parent: parent, name: name.existing()) else { return false }
                request.entry(fuse_entry_param(attributes, entryTimeout: fs.entryTimeout, attributeTimeout: fs.attributeTimeout))
                return true
            }
            guard !cached else { return }
            dispatcher.serve(req, "lookup", answersInterruptAtOnce: true) { request, fs throws(FSError) in
                let attributes = try await fs.lookupShowingLinks(parent: parent, name: name.existing())
                let entry = fuse_entry_param(attributes, entryTimeout: fs.entryTimeout, attributeTimeout: fs.attributeTimeout)
                // Not delivered (the caller was interrupted): the kernel will never forget this lookup.
                if !request.entry(entry) { fs.forget(entry.ino, count: 1) }
            }
        }
        ops.forget = { req, inode, count in
            FUSEDispatcher.from(req).filesystem.forget(inode, count: count)
            fuse_reply_none(req)
        }
        ops.forget_multi = { req, count, forgets in
            let filesystem = FUSEDispatcher.from(req).filesystem
            for item in UnsafeBufferPointer(start: forgets, count: count) {
                filesystem.forget(item.ino, count: item.nlookup)
            }
            fuse_reply_none(req)
        }
        ops.getattr = { req, inode, _ in
            FUSEDispatcher.from(req).serveNow(req, "getattr") { request, fs throws(FSError) in
                request.attributes(stat(try fs.attributes(inode)), timeout: fs.attributeTimeout)
            }
        }
        ops.statfs = { req, _ in
            FUSEDispatcher.from(req).serve(req, "statfs", answersInterruptAtOnce: true) { request, fs throws(FSError) in
                request.statfs(statvfs(try await fs.statistics()))
            }
        }
        installFileOperations(&ops)
        installDirectoryOperations(&ops)
        installWriteOperations(&ops)
        installNamespaceOperations(&ops)
        installAttributeOperations(&ops)
        return ops
    }

    /// Negotiates the connection: large reads and writes, async reads, readdirplus always.
    private static func configure(_ conn: UnsafeMutablePointer<fuse_conn_info>?) {
        guard let conn else { return }
        let wanted = boxfs_fuse_cap_async_read() | boxfs_fuse_cap_readdirplus() | boxfs_fuse_cap_parallel_dirops()
        conn.pointee.want |= wanted & conn.pointee.capable
        // Always readdirplus: one listing page fills names and attributes for `ls -l`.
        conn.pointee.want &= ~boxfs_fuse_cap_readdirplus_auto()
        conn.pointee.max_write = 1 << 20
        conn.pointee.max_readahead = 1 << 20
        conn.pointee.max_background = 64
        conn.pointee.congestion_threshold = 48
    }
}
