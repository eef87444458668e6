import Foundation
import SystemCalls

/// The complete local copy of a file being written: writes land here, reads of dirty content come
/// from here, and the uploader sends it. One descriptor held for its life, used through `Syscall`
/// (whole reads and writes, `EINTR` retried).
///
/// Data written here survives a killed daemon at once (it is in the kernel's page cache); `sync`
/// (at `fsync` and at the last close) makes it survive a power cut too.
final class StagingFile: Sendable {
    let path: String
    private let descriptor: Int32

    /// Opens `path`, creating it empty when `create` (and failing if it exists).
    init(path: String, create: Bool) throws(FSError) {
        do throws(SystemCallError) {
            descriptor = try Syscall.open(path, O_RDWR | (create ? O_CREAT | O_EXCL : 0))
        } catch {
            throw FSError.system(error.errno, "staging file \(path)")
        }
        self.path = path
    }

    deinit { Syscall.close(descriptor) }

    var size: Int64 { (try? Syscall.size(descriptor, path: path)) ?? 0 }

    /// Up to `length` bytes from `offset`: all of them unless the file ends first.
    func read(offset: Int64, length: Int) throws(FSError) -> Data {
        do throws(SystemCallError) { return try Syscall.read(descriptor, count: length, at: offset, path: path) } catch { throw failure("read", error) }
    }

    func write(_ data: Data, offset: Int64) throws(FSError) {
        do throws(SystemCallError) { try Syscall.writeAll(descriptor, data, at: offset, path: path) } catch { throw failure("write", error) }
    }

    func truncate(to size: Int64) throws(FSError) {
        do throws(SystemCallError) { try Syscall.truncate(descriptor, to: size, path: path) } catch { throw failure("truncate", error) }
    }

    func sync() throws(FSError) {
        do throws(SystemCallError) { try Syscall.sync(descriptor, path: path) } catch { throw failure("sync", error) }
    }

    func remove() { try? Syscall.unlink(path) }

    private func failure(_ what: String, _ error: SystemCallError) -> FSError {
        FSError.system(error.errno, "\(what) of the local copy \(path)")
    }
}
