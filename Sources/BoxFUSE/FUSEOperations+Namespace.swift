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
                try await fs.unlinkShowingLinks(parent: parent, name: name.existing())
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
                    throw FSError(.invalidArgument, "\(name): Box cannot swap two items")
                }
                try await fs.renameShowingLinks(
                    parent: parent, name: name, newParent: newParent, newName: newName,
                    noReplace: flags & FUSEOperations.renameNoReplace != 0)
                request.error(0)
            }
        }
        // Box has no symbolic links: the core keeps one as a small file with `-o links`, and refuses it without.
        ops.symlink = { req, link, parent, name in
            let target = String(cString: link!), name = KernelName(name!)
            FUSEDispatcher.from(req).serve(req, "symlink") { request, fs throws(FSError) in
                let attributes = try await fs.makeSymbolicLink(parent: parent, name: name, target: target)
                let entry = fuse_entry_param(attributes, entryTimeout: fs.entryTimeout, attributeTimeout: fs.attributeTimeout)
                if !request.entry(entry) { fs.forget(entry.ino, count: 1) }
            }
        }
        ops.readlink = { req, inode in
            FUSEDispatcher.from(req).serve(req, "readlink", answersInterruptAtOnce: true) { request, fs throws(FSError) in
                request.link(try await fs.readSymbolicLink(inode))
            }
        }
        // Box has no hard links.
        ops.link = { req, _, _, _ in fuse_reply_err(req, FSError.Kind.notPermitted.errno) }
    }

    /// Extended attributes: the read-only `user.box.*` facts (`BoxAttribute`), answered on this thread from
    /// the cached tree, like getattr: `ls -l` asks every file for `security.selinux` and
    /// `system.posix_acl_access`, and the kernel asks for `security.capability` before writes (once per open
    /// file with `FUSE_HANDLE_KILLPRIV_V2`, which `FUSEMount` negotiates; before every write without), so a
    /// task's hand-over per request would show. Every name outside `user.` answers ENOTSUP (GNU ls then stops
    /// asking for the rest of the mount). Setting or removing any attribute is refused: EPERM for
    /// `user.box.*`, ENOTSUP otherwise.
    static func installAttributeOperations(_ ops: inout fuse_lowlevel_ops) {
        ops.getxattr = { req, inode, name, size in
            let name = String(cString: name!)
            FUSEDispatcher.from(req).serveNow(req, "getxattr") { request, fs throws(FSError) in
                try request.xattr(fs.extendedAttribute(inode, name: name), size: size)
            }
        }
        ops.listxattr = { req, inode, size in
            FUSEDispatcher.from(req).serveNow(req, "listxattr") { request, fs throws(FSError) in
                try request.xattr(fs.extendedAttributeNames(inode).flatMap { Array($0.utf8) + [0] }, size: size)
            }
        }
        ops.setxattr = { req, _, name, _, _, _ in
            fuse_reply_err(req, AttributeNamespace(String(cString: name!)).refusal.errno)
        }
        ops.removexattr = { req, _, name in
            fuse_reply_err(req, AttributeNamespace(String(cString: name!)).refusal.errno)
        }
    }
}
