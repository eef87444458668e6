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
    /// `boxfs retry`: opening it tries every parked or backing-off upload now, and reads
    /// `{"retried":N}`. Like the status file, unlisted and out of reach of any Box name.
    public static let retryName = ".boxfs\\retry"
    static let retryInode = UInt64.max - 2

    public struct ReadError: Error, CustomStringConvertible {
        public let description: String
    }

    /// The status of the mount at `mountpoint` (the client side, for `boxfs status`).
    public static func read(mountpoint: String, file: String = name) throws(ReadError) -> Data {
        let path = mountpoint + "/" + file
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
    /// The attributes of `.boxfs\status` or `.boxfs\retry` at the root, or of a folder's `RefreshFile` or
    /// `CommandFile`, nil
    /// for any other name.
    func controlFileAttributes(parent: UInt64, name: String) -> FileAttributes? {
        if let refresh = refreshFileAttributes(parent: parent, name: name) { return refresh }
        if let watch = watchFileAttributes(parent: parent, name: name) { return watch }
        if let command = commandFileAttributes(parent: parent, name: name) { return command }
        guard parent == Self.rootInode else { return nil }
        if name == StatusFile.name { return statusFileAttributes }
        if name == StatusFile.retryName { return statusFileAttributes(inode: StatusFile.retryInode) }
        return nil
    }

    /// The status file's attributes: read-only for everyone, size 0 (read with direct I/O).
    var statusFileAttributes: FileAttributes { statusFileAttributes(inode: StatusFile.inode) }

    func statusFileAttributes(inode: UInt64) -> FileAttributes {
        let now = Date()
        return FileAttributes(
            inode: inode, kind: .file, size: 0, modified: now, changed: now, created: mountedAt, accessed: now,
            permissions: 0o444, uid: options.uid, gid: options.gid)
    }

    /// Opens the status file: a snapshot of the status, served by `read` from the handle.
    func openStatusFile(mode: OpenMode, truncate: Bool) async throws(FSError) -> OpenedFile {
        guard mode == .readOnly, !truncate else { throw FSError(.accessDenied, "\(StatusFile.name) is read-only") }
        let snapshot = await statusReport().encoded()
        return snapshotOpened(snapshot)
    }

    /// Opens the retry file: every waiting upload is tried now; reads `{"retried":N}`.
    func openRetryFile(mode: OpenMode, truncate: Bool) async throws(FSError) -> OpenedFile {
        guard mode == .readOnly, !truncate else { throw FSError(.accessDenied, "\(StatusFile.retryName) is read-only") }
        let retried = await writeBack?.uploader.retryNow() ?? 0
        return snapshotOpened(Data("{\"retried\":\(retried)}".utf8))
    }

    /// Uploads parked by a rejected token go again as soon as a new token is read.
    public func retryUploads() async {
        await writeBack?.uploader.retryNow()
    }

    func snapshotOpened(_ snapshot: Data) -> OpenedFile {
        var opened = OpenedFile(handle: handles.withLock { $0.open(.snapshot(snapshot)) }, keepCache: false)
        opened.directIO = true
        return opened
    }
}
