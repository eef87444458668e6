import BoxFS
import CFuse
import Foundation
import SystemCalls

extension FUSEOperations {
    static func installWriteOperations(_ ops: inout fuse_lowlevel_ops) {
        ops.create = { req, parent, name, _, info in
            let name = KernelName(name!)
            let info = info!.pointee
            FUSEDispatcher.from(req).serve(req, "create") { request, fs throws(FSError) in
                let (attributes, handle) = try await fs.create(parent: parent, name: name.new())
                var reply = info
                boxfs_fuse_fi_set_fh(&reply, handle)
                let entry = fuse_entry_param(
                    attributes, entryTimeout: fs.entryTimeout, attributeTimeout: fs.attributeTimeout)
                if !request.created(entry, reply) {
                    await fs.releaseFile(handle: handle)
                    fs.forget(attributes.inode, count: 1)
                }
            }
        }
        ops.mknod = { req, parent, name, mode, _ in
            let name = KernelName(name!)
            FUSEDispatcher.from(req).serve(req, "mknod") { request, fs throws(FSError) in
                // Box holds files and folders only: no devices, pipes or sockets.
                guard mode & S_IFMT == S_IFREG else { throw FSError(.notPermitted, "mknod: Box has only files and folders") }
                let (attributes, handle) = try await fs.create(parent: parent, name: name.new())
                await fs.releaseFile(handle: handle)
                request.entry(
                    fuse_entry_param(attributes, entryTimeout: fs.entryTimeout, attributeTimeout: fs.attributeTimeout))
            }
        }
        ops.write = { req, _, buffer, size, offset, info in
            // The buffer belongs to libfuse and is gone when this returns: copy it first.
            let data = Data(bytes: buffer!, count: size)
            let handle = boxfs_fuse_fi_fh(info)
            FUSEDispatcher.from(req).serve(req, "write") { request, fs throws(FSError) in
                request.written(try await fs.write(handle: handle, offset: Int64(offset), data: data))
            }
        }
        ops.fsync = { req, _, _, info in
            let handle = boxfs_fuse_fi_fh(info)
            FUSEDispatcher.from(req).serve(req, "fsync") { request, fs throws(FSError) in
                // It waits on the disk: off the cooperative pool.
                try await Syscall.offThePool { () throws(FSError) in try fs.fsync(handle: handle) }
                request.error(0)
            }
        }
        ops.fsyncdir = { req, _, _, _ in fuse_reply_err(req, 0) }
        ops.setattr = { req, inode, attributes, toSet, info in
            let handle = info.map { boxfs_fuse_fi_fh($0) }
            let change = AttributeChange(attributes!.pointee, toSet: toSet)
            FUSEDispatcher.from(req).serve(req, "setattr") { request, fs throws(FSError) in
                let result = try await fs.setAttributes(
                    inode, handle: handle, size: change.size, modified: change.modified, accessed: change.accessed)
                request.attributes(stat(result), timeout: fs.attributeTimeout)
            }
        }
    }
}

/// The parts of a `setattr` the filesystem acts on: size, modification and access time. Mode and
/// owner are accepted and ignored (Box has neither).
struct AttributeChange: Sendable {
    var size: Int64?
    var modified: Date?
    var accessed: Date?

    init(_ attributes: stat, toSet: Int32) {
        if toSet & boxfs_fuse_set_attr_size() != 0 { size = Int64(attributes.st_size) }
        if toSet & boxfs_fuse_set_attr_mtime_now() != 0 {
            modified = Date()
        } else if toSet & boxfs_fuse_set_attr_mtime() != 0 {
            let time = attributes.st_mtim
            modified = Date(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1e9)
        }
        if toSet & boxfs_fuse_set_attr_atime_now() != 0 {
            accessed = Date()
        } else if toSet & boxfs_fuse_set_attr_atime() != 0 {
            let time = attributes.st_atim
            accessed = Date(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1e9)
        }
    }
}
