import Foundation
import Glibc
import Testing

@testable import SystemCalls

/// `Syscall.replaceFile` replaces a file whole, 0600, leaving no temporary file, and a failure leaves it as it was.
@Suite struct ReplaceFileTests {
    @Test func aFileIsReplacedWholeWithMode0600AndNothingElseLeftBeside() throws {
        let folder = NSTemporaryDirectory() + "syscalls-replace-\(UUID().uuidString)"
        try Syscall.makeDirectory(folder)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/state.json"
        try Syscall.replaceFile(path, with: Data("first".utf8))
        try Syscall.replaceFile(path, with: Data("second, longer".utf8))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "second, longer")
        var status = stat()
        #expect(stat(path, &status) == 0 && status.st_mode & 0o777 == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["state.json"])
    }

    @Test func aFailedReplaceLeavesTheFileAsItWasAndNoTemporaryFile() throws {
        let folder = NSTemporaryDirectory() + "syscalls-replace-\(UUID().uuidString)"
        try Syscall.makeDirectory(folder)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/state.json"
        try Syscall.replaceFile(path, with: Data("kept".utf8))
        // A folder where the file stands: the rename fails after the temporary file was written.
        try Syscall.makeDirectory(folder + "/taken")
        try Syscall.replaceFile(folder + "/taken/inner", with: Data("x".utf8))
        #expect(throws: SystemCallError.self) { try Syscall.replaceFile(folder + "/taken", with: Data("lost".utf8)) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "kept")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["state.json", "taken"])
    }
}
