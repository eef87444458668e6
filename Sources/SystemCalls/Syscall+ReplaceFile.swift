import Foundation

extension Syscall {
    /// Replaces the file at `path` with `data`, whole or not at all, across a crash or a power loss: written to a
    /// temporary file beside it (a name of this process's own, `O_EXCL`, mode 0600), synced, renamed over `path`, and
    /// the folder synced so the rename itself is kept. The temporary file is removed on failure. Blocks on the disk:
    /// call it off Swift's cooperative pool (`offThePool`) and off FUSE threads.
    public static func replaceFile(_ path: String, with data: Data) throws(SystemCallError) {
        let temp = path + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = try open(temp, O_WRONLY | O_CREAT | O_EXCL)
        do throws(SystemCallError) {
            defer { close(descriptor) }
            try writeAll(descriptor, data, path: temp)
            try sync(descriptor, path: temp)
            try rename(temp, to: path)
        } catch {
            try? unlink(temp)
            throw error
        }
        let folder = (path as NSString).deletingLastPathComponent
        if let directory = try? open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY) {
            try? sync(directory, path: folder)
            close(directory)
        }
    }
}
