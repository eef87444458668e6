import Glibc

/// Reads and writes that finish what they were asked: a call may move fewer bytes than asked (a pipe,
/// a socket, a signal arriving mid-transfer, a file system that splits large requests), so each is
/// repeated from where the last stopped, `EINTR` retried, until done, the end of the file, or a failure.
extension Syscall {
    /// `pread` until `buffer` is full or the file ends; returns the bytes read (fewer only at the end).
    public static func readFully(
        _ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64, path: String
    ) throws(SystemCallError) -> Int {
        try fill(buffer, "pread", path) { done in
            pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
        }
    }

    /// `read` (from the descriptor's position: a pipe, a socket) until `buffer` is full or the end; returns the bytes read.
    public static func readFully(
        _ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String
    ) throws(SystemCallError) -> Int {
        try fill(buffer, "read", path) { done in Glibc.read(descriptor, buffer.baseAddress! + done, buffer.count - done) }
    }

    /// One `read` of what is there (at least one byte unless at the end), `EINTR` retried: for a caller that
    /// handles bytes as they come (a line from a pipe, a request from a socket).
    public static func readSome(
        _ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String
    ) throws(SystemCallError) -> Int {
        guard !buffer.isEmpty else { return 0 }
        return try retrying("read", path) { Glibc.read(descriptor, buffer.baseAddress!, buffer.count) }
    }

    /// One `pread`, with `EINTR` thrown, not retried: for a file whose server answers `EINTR` itself, where it
    /// is the answer (a boxfs command file: the command was interrupted, and a retry could run it twice).
    public static func readOnce(
        _ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64, path: String
    ) throws(SystemCallError) -> Int {
        let count = pread(descriptor, buffer.baseAddress, buffer.count, off_t(offset))
        guard count >= 0 else { throw SystemCallError(operation: "pread", path: path, errno: errno) }
        return count
    }

    /// `pwrite` until all of `buffer` is written.
    public static func writeAll(
        _ descriptor: Int32, _ buffer: UnsafeRawBufferPointer, at offset: Int64, path: String
    ) throws(SystemCallError) {
        try drain(buffer, "pwrite", path) { done in
            pwrite(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
        }
    }

    /// `write` (at the descriptor's position: a pipe, a socket, a file opened to append) until all is written.
    public static func writeAll(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer, path: String) throws(SystemCallError) {
        try drain(buffer, "write", path) { done in Glibc.write(descriptor, buffer.baseAddress! + done, buffer.count - done) }
    }

    /// Repeats `transfer(done)` (which moves bytes from `done` on) until `buffer` is full or it returns 0 (the end).
    static func fill(
        _ buffer: UnsafeMutableRawBufferPointer, _ operation: String, _ path: String, _ transfer: (Int) -> Int
    ) throws(SystemCallError) -> Int {
        var done = 0
        while done < buffer.count {
            let count = try retrying(operation, path) { transfer(done) }
            if count == 0 { break }
            done += count
        }
        return done
    }

    /// Repeats `transfer(done)` until all of `buffer` is written. A write that moves nothing with bytes left
    /// would repeat for ever: it is taken for a full disk (`ENOSPC`).
    static func drain(
        _ buffer: UnsafeRawBufferPointer, _ operation: String, _ path: String, _ transfer: (Int) -> Int
    ) throws(SystemCallError) {
        var done = 0
        while done < buffer.count {
            let count = try retrying(operation, path) { transfer(done) }
            guard count > 0 else { throw SystemCallError(operation: operation, path: path, errno: ENOSPC) }
            done += count
        }
    }
}
