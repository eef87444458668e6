import BoxFS
import CFuse
import Foundation

extension FUSEOperations {
    static func installFileOperations(_ ops: inout fuse_lowlevel_ops) {
        ops.open = { req, inode, info in
            let info = info!.pointee
            var copy = info
            let flags = boxfs_fuse_fi_flags(&copy)
            let mode: OpenMode = switch flags & O_ACCMODE {
            case O_WRONLY: .writeOnly
            case O_RDWR: .readWrite
            default: .readOnly
            }
            // An open for reading changes nothing, so an interrupt may answer it at once.
            let changesNothing = mode == .readOnly && flags & O_TRUNC == 0
            FUSEDispatcher.from(req).serve(req, "open", answersInterruptAtOnce: changesNothing) { request, fs throws(FSError) in
                var reply = info
                let opened = try await fs.openFile(inode, mode: mode, truncate: flags & O_TRUNC != 0)
                boxfs_fuse_fi_set_fh(&reply, opened.handle)
                boxfs_fuse_fi_set_keep_cache(&reply, opened.keepCache ? 1 : 0)
                if opened.directIO { boxfs_fuse_fi_set_direct_io(&reply, 1) }
                if !request.open(reply) { await fs.releaseFile(handle: opened.handle) }
            }
        }
        ops.read = { req, inode, size, offset, info in
            let handle = boxfs_fuse_fi_fh(info)
            FUSEDispatcher.from(req).serve(req, "read", answersInterruptAtOnce: true) { request, fs throws(FSError) in
                do throws(FSError) {
                    request.buffer(try await fs.read(handle: handle, offset: Int64(offset), length: size))
                } catch {
                    if error.errno == EIO { fs.readFailed(inode: inode) }
                    throw error
                }
            }
        }
        ops.release = { req, _, info in
            let handle = boxfs_fuse_fi_fh(info)
            FUSEDispatcher.from(req).serve(req, "release") { request, fs throws(FSError) in
                await fs.releaseFile(handle: handle)
                request.error(0)
            }
        }
        // Each close(2): nothing to report here; content is journaled as it is written.
        ops.flush = { req, _, _ in fuse_reply_err(req, 0) }
    }

    static func installDirectoryOperations(_ ops: inout fuse_lowlevel_ops) {
        ops.opendir = { req, inode, info in
            let info = info!.pointee
            FUSEDispatcher.from(req).serve(req, "opendir", answersInterruptAtOnce: true) { request, fs throws(FSError) in
                var reply = info
                let handle = try await fs.openDirectory(inode)
                boxfs_fuse_fi_set_fh(&reply, handle)
                // Not delivered (the caller was interrupted): no releasedir will come for it.
                if !request.open(reply) { fs.releaseDirectory(handle: handle) }
            }
        }
        ops.readdirplus = { req, _, size, offset, info in
            let handle = boxfs_fuse_fi_fh(info)
            FUSEDispatcher.from(req).serve(req, "readdirplus", answersInterruptAtOnce: true) { request, fs throws(FSError) in
                let entries = try fs.readDirectoryShowingLinks(handle: handle, offset: Int(offset))
                try DirectoryBuffer.fill(request, entries: entries, filesystem: fs, handle: handle, size: size, plus: true)
            }
        }
        ops.readdir = { req, _, size, offset, info in
            let handle = boxfs_fuse_fi_fh(info)
            FUSEDispatcher.from(req).serve(req, "readdir", answersInterruptAtOnce: true) { request, fs throws(FSError) in
                let entries = try fs.readDirectoryShowingLinks(handle: handle, offset: Int(offset))
                try DirectoryBuffer.fill(request, entries: entries, filesystem: fs, handle: handle, size: size, plus: false)
            }
        }
        ops.releasedir = { req, _, info in
            FUSEDispatcher.from(req).filesystem.releaseDirectory(handle: boxfs_fuse_fi_fh(info))
            fuse_reply_err(req, 0)
        }
    }
}
