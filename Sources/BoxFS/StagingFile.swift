import Foundation

/// The complete local copy of a file being written: writes land here, reads of dirty content come
/// from here, and the uploader sends it. Plain POSIX calls on one descriptor held for its life.
///
/// Data written here survives a killed daemon at once (it is in the kernel's page cache); `sync`
/// (at `fsync` and at the last close) makes it survive a power cut too.
final class StagingFile: Sendable {
    let path: String
    private let descriptor: Int32

    /// Opens `path`, creating it empty when `create` (and failing if it exists).
    init(path: String, create: Bool) throws(FSError) {
        let flags = O_RDWR | O_CLOEXEC | (create ? O_CREAT | O_EXCL : 0)
        let descriptor = open(path, flags, 0o600)
        guard descriptor >= 0 else { throw FSError.system(errno, "staging file \(path)") }
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    var size: Int64 {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? Int64(info.st_size) : 0
    }

    func read(offset: Int64, length: Int) throws(FSError) -> Data {
        var data = Data(count: length)
        let count = data.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, length, off_t(offset)) }
        guard count >= 0 else { throw failure("read") }
        data.count = count
        return data
    }

    func write(_ data: Data, offset: Int64) throws(FSError) {
        var written = 0
        while written < data.count {
            let count = data.withUnsafeBytes { bytes in
                pwrite(descriptor, bytes.baseAddress! + written, data.count - written, off_t(offset) + off_t(written))
            }
            guard count > 0 else { throw failure("write") }
            written += count
        }
    }

    func truncate(to size: Int64) throws(FSError) {
        guard ftruncate(descriptor, off_t(size)) == 0 else { throw failure("truncate") }
    }

    func sync() throws(FSError) {
        guard fsync(descriptor) == 0 else { throw failure("sync") }
    }

    func remove() { unlink(path) }

    private func failure(_ what: String) -> FSError {
        FSError.system(errno, "\(what) of the local copy \(path)")
    }
}
