import Foundation
import Glibc
import Synchronization
import Testing

@testable import SystemCalls

/// The wrapper hides what a single system call leaves to its caller: `EINTR`, and transfers that move
/// fewer bytes than asked. Each test fails against a wrapper that makes one call and returns.
@Suite struct SyscallTests {
    /// A read blocked on an empty pipe is interrupted by signals (no `SA_RESTART`), then data arrives:
    /// the wrapper answers the data, where one `read` would fail with `EINTR`.
    @Test func aReadInterruptedBySignalsIsRetried() throws {
        let pipe = Pipe()
        defer { Syscall.close(pipe.read); Syscall.close(pipe.write) }
        let reader = InterruptibleThread { () -> Result<Data, SystemCallError> in
            Result { () throws(SystemCallError) in
                var bytes = [UInt8](repeating: 0, count: 4)
                let count = try Syscall.readSome(pipe.read, into: &bytes, path: "the pipe")
                return Data(bytes.prefix(count))
            }
        }
        reader.interrupt(times: 5)
        try Syscall.writeAll(pipe.write, Data("abcd".utf8), path: "the pipe")
        #expect(try reader.value()?.get() == Data("abcd".utf8))
    }

    /// A pipe that gets its bytes in three writes, apart: one `read` returns the first piece only; the
    /// wrapper goes on until the buffer is full.
    @Test func aShortReadGoesOnUntilTheBufferIsFull() throws {
        let pipe = Pipe()
        defer { Syscall.close(pipe.read) }
        let writer = InterruptibleThread { () -> Bool in
            for piece in ["abc", "defgh", "ij"] {
                guard (try? Syscall.writeAll(pipe.write, Data(piece.utf8), path: "the pipe")) != nil else { return false }
                Thread.sleep(forTimeInterval: 0.03)
            }
            Syscall.close(pipe.write)
            return true
        }
        var buffer = [UInt8](repeating: 0, count: 8)
        let count = try Syscall.readFully(pipe.read, into: &buffer, count: buffer.count, path: "the pipe")
        #expect(count == 8)
        #expect(String(decoding: buffer, as: UTF8.self) == "abcdefgh")
        // Asked for more than is left: what there is, once the writer closed its end.
        var rest = [UInt8](repeating: 0, count: 16)
        let restCount = try Syscall.readFully(pipe.read, into: &rest, count: rest.count, path: "the pipe")
        #expect(restCount == 2)
        #expect(writer.value() == true)
    }

    /// A write of 1 MiB into a pipe nobody reads yet fills its 64 KiB and blocks; a signal then makes
    /// `write` return the part it moved. The wrapper writes the rest: the reader gets every byte.
    @Test func aWriteCutShortByASignalWritesTheRest() throws {
        let pipe = Pipe()
        defer { Syscall.close(pipe.read) }
        let sent = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let writer = InterruptibleThread { () -> SystemCallError? in
            defer { Syscall.close(pipe.write) }
            do throws(SystemCallError) { try Syscall.writeAll(pipe.write, sent, path: "the pipe") } catch { return error }
            return nil
        }
        writer.interrupt(times: 3)
        var received = Data()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = try Syscall.readSome(pipe.read, into: &chunk, path: "the pipe")
            if count == 0 { break }
            received.append(contentsOf: chunk.prefix(count))
        }
        #expect(writer.value() as SystemCallError?? == .some(nil))
        #expect(received.count == sent.count)
        #expect(received.elementsEqual(sent))  // a Bool: a failed `==` of two Data would be diffed, slowly
    }

    /// The loops themselves, with a transfer that moves at most 3 bytes a call and fails with `EINTR` every
    /// other call: `pread`/`pwrite` on a file do this only rarely, so a stand-in shows it deterministically.
    @Test func positionedTransfersLoopOverShortCountsAndEINTR() throws {
        let source = Array("the quick brown fox".utf8)
        var calls = 0
        var target = [UInt8](repeating: 0, count: source.count)
        let read = try target.withUnsafeMutableBytes { buffer in
            try Syscall.fill(buffer, "pread", "stand-in") { done in
                calls += 1
                if calls % 2 == 1 { errno = EINTR; return -1 }
                let count = min(3, source.count - done)
                for index in 0..<count { buffer[done + index] = source[done + index] }
                return count
            }
        }
        #expect(read == source.count)
        #expect(target == source)

        var written: [UInt8] = []
        calls = 0
        try source.withUnsafeBytes { buffer in
            try Syscall.drain(buffer, "pwrite", "stand-in") { done in
                calls += 1
                if calls % 2 == 1 { errno = EINTR; return -1 }
                let count = min(3, buffer.count - done)
                written += buffer[done..<(done + count)]
                return count
            }
        }
        #expect(written == source)
    }

    /// On a real file: positioned writes and reads round-trip, a read past the end stops there.
    @Test func filesRoundTripAndReadsStopAtTheEnd() throws {
        let path = NSTemporaryDirectory() + "syscalls-\(UUID().uuidString)"
        let fd = try Syscall.open(path, O_RDWR | O_CREAT | O_EXCL)
        defer { Syscall.close(fd); try? Syscall.unlink(path) }
        try Syscall.writeAll(fd, Data("hello world".utf8), at: 100, path: path)
        try Syscall.sync(fd, path: path)
        #expect(try Syscall.size(fd, path: path) == 111)
        #expect(try Syscall.read(fd, count: 20, at: 100, path: path) == Data("hello world".utf8))
        #expect(try Syscall.read(fd, count: 5, at: 200, path: path).isEmpty)
        try Syscall.truncate(fd, to: 105, path: path)
        #expect(try Syscall.read(fd, count: 20, at: 100, path: path) == Data("hello".utf8))
    }

    /// A failure keeps the call, the path and `errno`; the idempotent calls forgive what they are for.
    @Test func failuresNameTheCallThePathAndErrno() throws {
        let missing = NSTemporaryDirectory() + "syscalls-missing-\(UUID().uuidString)/file"
        #expect(throws: SystemCallError(operation: "open", path: missing, errno: ENOENT)) {
            try Syscall.open(missing, O_RDONLY)
        }
        let error = SystemCallError(operation: "open", path: missing, errno: ENOENT)
        #expect(error.description == "open \(missing): No such file or directory (errno 2)")
        try Syscall.unlink(missing)  // already gone: fine
        let directory = NSTemporaryDirectory() + "syscalls-dir-\(UUID().uuidString)"
        try Syscall.makeDirectory(directory)
        try Syscall.makeDirectory(directory)  // exists: fine
        defer { rmdir(directory) }
        #expect(throws: SystemCallError(operation: "rename", path: directory + "/b", errno: ENOENT)) {
            try Syscall.rename(directory + "/a", to: directory + "/b")
        }
        let lockPath = directory + "/lock"
        let first = try Syscall.open(lockPath, O_RDWR | O_CREAT), second = try Syscall.open(lockPath, O_RDWR)
        defer { Syscall.close(first); Syscall.close(second); try? Syscall.unlink(lockPath) }
        #expect(try Syscall.lockExclusively(first, path: lockPath))
        #expect(try !Syscall.lockExclusively(second, path: lockPath))
    }
}
