#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin wrappers over the few system calls the cache makes: they retry `EINTR` and throw
/// `BlockCacheError.io` with the path, so callers never look at `errno` themselves.
enum Posix {
    static func check(_ operation: String, _ path: String, _ call: () -> Int32) throws -> Int32 {
        while true {
            let result = call()
            if result >= 0 { return result }
            if errno != EINTR { throw BlockCacheError.io(operation: operation, path: path, errno: errno) }
        }
    }

    static func openFile(_ path: String, _ flags: Int32, mode: mode_t = 0o600) throws -> Int32 {
        try check("open", path) { open(path, flags | O_CLOEXEC, mode) }
    }

    static func closeFile(_ fd: Int32) {
        _ = close(fd)
    }

    /// Reads until `buffer` is full or the file ends; returns the number of bytes read.
    static func preadFully(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer, at offset: Int64,
                           path: String) throws -> Int {
        var done = 0
        while done < buffer.count {
            let count = try check("pread", path) {
                Int32(truncatingIfNeeded: pread(fd, buffer.baseAddress! + done, buffer.count - done,
                                                off_t(offset) + off_t(done)))
            }
            if count == 0 { break }
            done += Int(count)
        }
        return done
    }

    static func pwriteFully(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, at offset: Int64, path: String) throws {
        var done = 0
        while done < buffer.count {
            let count = try check("pwrite", path) {
                Int32(truncatingIfNeeded: pwrite(fd, buffer.baseAddress! + done, buffer.count - done,
                                                 off_t(offset) + off_t(done)))
            }
            done += Int(count)
        }
    }

    static func fileSize(_ fd: Int32, path: String) throws -> Int64 {
        var info = stat()
        _ = try check("fstat", path) { fstat(fd, &info) }
        return Int64(info.st_size)
    }

    static func renameFile(_ from: String, _ to: String) throws {
        _ = try check("rename", to) { rename(from, to) }
    }

    /// Removes a file; a file that is already gone is not an error.
    static func unlinkFile(_ path: String) throws {
        while unlink(path) != 0 {
            if errno == ENOENT { return }
            if errno != EINTR { throw BlockCacheError.io(operation: "unlink", path: path, errno: errno) }
        }
    }

    /// Creates a directory readable only by its owner; an existing directory is fine.
    static func makeDirectory(_ path: String) throws {
        while mkdir(path, 0o700) != 0 {
            if errno == EEXIST { return }
            if errno != EINTR { throw BlockCacheError.io(operation: "mkdir", path: path, errno: errno) }
        }
    }
}
