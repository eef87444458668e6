import Glibc

/// Reading a directory's entries, and looking at or removing one by name, relative to the open directory
/// (no path is looked up again per entry).
extension Syscall {
    /// An open directory for `forEachEntry`.
    public struct Directory: ~Copyable {
        fileprivate let stream: OpaquePointer
        public let path: String

        /// The status of `name` in this directory, without following a symbolic link (`fstatat`).
        public func status(of name: String) throws(SystemCallError) -> stat {
            var info = stat()
            let fd = dirfd(stream)
            _ = try retrying("fstatat", path + "/" + name) { fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) }
            return info
        }

        /// Removes `name`: a file, or an empty directory when `directory` (`unlinkat`).
        public func remove(_ name: String, directory: Bool = false) throws(SystemCallError) {
            let fd = dirfd(stream)
            _ = try retrying("unlinkat", path + "/" + name) { unlinkat(fd, name, directory ? AT_REMOVEDIR : 0) }
        }
    }

    /// Calls `body` with each entry's name in the directory at `path` but `.` and `..` (`opendir`, `readdir`).
    public static func forEachEntry(
        in path: String, _ body: (borrowing Directory, String) -> Void
    ) throws(SystemCallError) {
        guard let stream = opendir(path) else { throw SystemCallError(operation: "opendir", path: path, errno: errno) }
        defer { closedir(stream) }
        let directory = Directory(stream: stream, path: path)
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name == "." || name == ".." { continue }
            body(directory, name)
        }
    }
}
