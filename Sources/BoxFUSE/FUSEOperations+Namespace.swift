import BoxFS
import CFuse
import Foundation

extension FUSEOperations {
    /// `rename` flags from <linux/fs.h> (not exported by Glibc's module).
    static let renameNoReplace: UInt32 = 1
    static let renameExchange: UInt32 = 2

    static func installNamespaceOperations(_ ops: inout fuse_lowlevel_ops) {
        ops.mkdir = { req, parent, name, _ in
            let name = KernelName(name!)
            FUSEDispatcher.from(req).serve(req, "mkdir") { request, fs throws(FSError) in
                let attributes = try await fs.makeDirectory(parent: parent, name: name.new())
                request.entry(
                    fuse_entry_param(attributes, entryTimeout: fs.entryTimeout, attributeTimeout: fs.attributeTimeout))
            }
        }
        ops.unlink = { req, parent, name in
            let name = KernelName(name!)
            FUSEDispatcher.from(req).serve(req, "unlink") { request, fs throws(FSError) in
                try await fs.unlink(parent: parent, name: name.existing())
                request.error(0)
            }
        }
        ops.rmdir = { req, parent, name in
            let name = KernelName(name!)
            FUSEDispatcher.from(req).serve(req, "rmdir") { request, fs throws(FSError) in
                try await fs.removeDirectory(parent: parent, name: name.existing())
                request.error(0)
            }
        }
        ops.rename = { req, parent, name, newParent, newName, flags in
            let source = KernelName(name!), target = KernelName(newName!)
            FUSEDispatcher.from(req).serve(req, "rename") { request, fs throws(FSError) in
                let name = try source.existing(), newName = try target.new()
                // RENAME_EXCHANGE swaps two names: Box has no such operation.
                guard flags & FUSEOperations.renameExchange == 0 else {
                    throw FSError(EINVAL, "\(name): Box cannot swap two items")
                }
                try await fs.rename(
                    parent: parent, name: name, newParent: newParent, newName: newName,
                    noReplace: flags & FUSEOperations.renameNoReplace != 0)
                request.error(0)
            }
        }
        // Box has no links of either kind.
        ops.symlink = { req, _, _, _ in fuse_reply_err(req, EPERM) }
        ops.link = { req, _, _, _ in fuse_reply_err(req, EPERM) }
    }

    /// Extended attributes: none. getxattr answers ENOSYS, after which the kernel never asks again
    /// (`ls -l` would otherwise ask every file for its SELinux label and ACL; `boxfs status` reads
    /// `StatusFile` instead). Listing finds none; setting any is refused with ENOTSUP, which `cp -a`
    /// and `rsync -X` accept quietly.
    static func installAttributeOperations(_ ops: inout fuse_lowlevel_ops) {
        ops.getxattr = { req, _, _, _ in fuse_reply_err(req, ENOSYS) }
        ops.listxattr = { req, _, size in
            if size == 0 { fuse_reply_xattr(req, 0) } else { fuse_reply_buf(req, nil, 0) }
        }
        ops.setxattr = { req, _, _, _, _, _ in fuse_reply_err(req, ENOTSUP) }
        ops.removexattr = { req, _, _ in fuse_reply_err(req, ENOTSUP) }
    }
}
