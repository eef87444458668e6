import Foundation
import Glibc
import Testing

@testable import SystemCalls

/// The calls that move no data do what their C counterparts do, and report failures the same way.
@Suite struct DescriptorCallsTests {
    @Test func aDirectoryListsItsEntriesAndRemovesByName() throws {
        let folder = NSTemporaryDirectory() + "syscalls-dir-\(UUID().uuidString)"
        try Syscall.makeDirectory(folder)
        defer { rmdir(folder) }
        for name in ["a", "b"] { Syscall.close(try Syscall.open(folder + "/" + name, O_WRONLY | O_CREAT)) }
        try Syscall.makeDirectory(folder + "/sub")
        var seen: [String: mode_t] = [:]
        try Syscall.forEachEntry(in: folder) { directory, name in
            seen[name] = (try? directory.status(of: name))?.st_mode ?? 0
            try? directory.remove(name, directory: name == "sub")
        }
        #expect(seen.keys.sorted() == ["a", "b", "sub"])
        #expect(seen["sub"].map { $0 & S_IFMT } == S_IFDIR)
        var left: [String] = []
        try Syscall.forEachEntry(in: folder) { _, name in left.append(name) }
        #expect(left.isEmpty)
        #expect(throws: SystemCallError(operation: "opendir", path: folder + "/none", errno: ENOENT)) {
            try Syscall.forEachEntry(in: folder + "/none") { _, _ in }
        }
    }

    @Test func temporaryFilesPipesFlagsAndCopies() throws {
        let temporary = try Syscall.makeTemporaryFile(NSTemporaryDirectory() + "syscalls-XXXXXX")
        defer { Syscall.close(temporary.descriptor); try? Syscall.unlink(temporary.path) }
        #expect(!temporary.path.hasSuffix("XXXXXX"))
        #expect(try Syscall.status(temporary.path).st_ino == Syscall.status(temporary.descriptor, path: "").st_ino)
        try Syscall.setStatusFlags(temporary.descriptor, try Syscall.statusFlags(temporary.descriptor, path: "") | O_APPEND, path: "")
        #expect(try Syscall.statusFlags(temporary.descriptor, path: "") & O_APPEND != 0)
        try Syscall.touch(temporary.descriptor, path: temporary.path)

        let pipe = try Syscall.pipe()
        let copy = try Syscall.duplicate(pipe.write, path: "the pipe")
        Syscall.close(pipe.write)
        try Syscall.writeAll(copy, Data("via the copy".utf8), path: "the pipe")
        Syscall.close(copy)
        #expect(try Syscall.waitReadable(pipe.read, milliseconds: 1000, path: "the pipe"))
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = try Syscall.readFully(pipe.read, into: &bytes, count: bytes.count, path: "the pipe")
        #expect(String(decoding: bytes.prefix(count), as: UTF8.self) == "via the copy")
        Syscall.close(pipe.read)
        #expect(try Syscall.fileSystemStatus(NSTemporaryDirectory()).f_bsize > 0)
    }
}
