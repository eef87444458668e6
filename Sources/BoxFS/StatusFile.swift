import Foundation

/// The mount's status as a file that only `boxfs status` knows to open: `<mountpoint>/.boxfs\status`.
///
/// Box forbids `\` in names, so the name can never hide a real file. It is not listed, cannot be
/// written or created, and each open reads a JSON snapshot (`StatusReport`) taken at that open,
/// with direct I/O, so its size of 0 never cuts a read short.
///
/// Why a file and not an extended attribute of the root: serving getxattr at all makes the kernel
/// ask every file `ls -l` shows for its SELinux label and ACL, two round trips per file (~0.4 s per
/// 10,000 files here). Answering ENOSYS once instead makes the kernel stop asking for good.
public enum StatusFile {
    public static let name = ".boxfs\\status"
    /// Never given to a Box item (`InodeTable` counts up from 2).
    static let inode = UInt64.max - 1

    public struct ReadError: Error, CustomStringConvertible {
        public let description: String
    }

    /// The status of the mount at `mountpoint` (the client side, for `boxfs status`).
    public static func read(mountpoint: String) throws(ReadError) -> Data {
        let path = mountpoint + "/" + name
        guard let handle = FileHandle(forReadingAtPath: path) else {
            let code = errno
            if code == ENOENT || code == EINVAL { throw ReadError(description: "not a boxfs mount") }
            throw ReadError(description: String(cString: strerror(code)))
        }
        defer { try? handle.close() }
        do {
            return try handle.readToEnd() ?? Data()
        } catch {
            throw ReadError(description: "reading the status of \(mountpoint): \(error.localizedDescription)")
        }
    }
}

extension FileSystem {
    /// The status file's attributes: read-only for everyone, size 0 (read with direct I/O).
    var statusFileAttributes: FileAttributes {
        let now = Date()
        return FileAttributes(
            inode: StatusFile.inode, kind: .file, size: 0, modified: now, changed: now, created: mountedAt, accessed: now,
            permissions: 0o444, uid: options.uid, gid: options.gid)
    }

    /// Opens the status file: a snapshot of the status, served by `read` from the handle.
    func openStatusFile(mode: OpenMode, truncate: Bool) async throws(FSError) -> OpenedFile {
        guard mode == .readOnly, !truncate else { throw FSError(EACCES, "\(StatusFile.name) is read-only") }
        let snapshot = await statusReport().encoded()
        var opened = OpenedFile(handle: handles.withLock { $0.open(.snapshot(snapshot)) }, keepCache: false)
        opened.directIO = true
        return opened
    }
}
