import BoxTestSupport
import Foundation
import XCTest

/// A file open for reading while other openers rewrite and delete it: the reader's descriptor follows the file,
/// as on a local disk, until it is closed.
extension WriteRaceTests {
    /// Defect (found by the reference-model tier): a descriptor opened for reading while the file was only on Box
    /// read 0 bytes once the file had been rewritten through another descriptor and then unlinked: the unlink
    /// dropped the local copy the rewrite made, which the reader was not counted in.
    func testAReaderOpenedBeforeARewriteAndAnUnlinkReadsTheRewrittenBytes() async throws {
        let mount = try await startAndMount(texts: ["f0": String(repeating: "a", count: 1519)])
        let reader = try HeldFile(mount.path("f0"), flags: O_RDONLY)
        let writer = try HeldFile(mount.path("f0"), flags: O_RDWR)
        let rewritten = String(repeating: "b", count: 3166)
        try write(rewritten, to: mount.path("f0"))
        try succeed(["rm", mount.path("f0")])
        XCTAssertEqual(try reader.pread(at: 2314, count: 12535), Data(rewritten.utf8.dropFirst(2314)))
        XCTAssertEqual(try reader.pread(at: 0, count: 4), Data("bbbb".utf8))
        try writer.close()
        try reader.close()
        try await waitUntilSettled(mount)
        XCTAssertEqual(try boxNames(in: ""), [])
    }

    /// Defect (found by the reference-model tier): a new file open for writing and then replaced by a rename read
    /// back 0 bytes of what was written to it through its descriptor after the rename.
    func testAFileReplacedByARenameKeepsWhatIsWrittenThroughItsOpenDescriptor() async throws {
        let mount = try await startAndMount()
        try write(String(repeating: "s", count: 1583), to: mount.path("f1"))
        // f1 on Box first: a rename that meets f1's upload landing can fail with EIO (docs/TESTING.md "Still open").
        try await waitUntilSettled(mount)
        let held = try HeldFile(mount.path("f3"), flags: O_RDWR | O_CREAT)
        try succeed(["mv", mount.path("f1"), mount.path("f3")])
        let written = Data(repeating: 0x77, count: 1752)
        try held.pwrite(written, at: 876)
        XCTAssertEqual(try held.pread(at: 202, count: 27768), Data(count: 876 - 202) + written)
        try held.close()
        try await waitUntilSettled(mount)
        try await waitForBox("f3", text: String(repeating: "s", count: 1583))
        XCTAssertEqual(try boxNames(in: ""), ["f3"])
    }

    /// Defect (found by the in-process core model, seed 566940517): a descriptor opened for reading on a file only
    /// on Box read the bytes of another file renamed over it (0 bytes past that file's end): the renamed content
    /// becomes the replaced Box file's next version, and the reader took any local content of that Box file for
    /// its own. The open inode is the replaced file's, so it reads what that file held.
    func testAReaderOfAFileReplacedByARenameReadsTheReplacedFile() async throws {
        let replaced = String(repeating: "r", count: 3778)
        let mount = try await startAndMount(texts: ["f0": String(repeating: "n", count: 2670), "f1": replaced])
        let reader = try HeldFile(mount.path("f1"), flags: O_RDONLY)
        try succeed(["mv", mount.path("f0"), mount.path("f1")])
        XCTAssertEqual(try reader.pread(at: 3288, count: 15138), Data(replaced.utf8.dropFirst(3288)))
        XCTAssertEqual(try reader.pread(at: 0, count: 4), Data("rrrr".utf8))
        try reader.close()
        try await waitUntilSettled(mount)
        try await waitForBox("f1", text: String(repeating: "n", count: 2670))
        XCTAssertEqual(try boxNames(in: ""), ["f1"])
    }

    /// Defect (found by the in-process core model, seed 709055300): the same reader, once the file renamed over it
    /// was appended to, read the new file's bytes: the append's local copy of the Box file took every handle
    /// reading that Box id, the one open on the replaced inode too.
    func testAReaderOfAFileReplacedByARenameIgnoresWritesToTheNewFile() async throws {
        let replaced = String(repeating: "r", count: 1795)
        let mount = try await startAndMount(texts: ["f2": String(repeating: "n", count: 3442), "f1": replaced])
        let reader = try HeldFile(mount.path("f1"), flags: O_RDONLY)
        try succeed(["mv", mount.path("f2"), mount.path("f1")])
        try await waitUntilSettled(mount)
        try succeed(["sh", "-c", "printf %1494s '' >> \"$1\"", "sh", mount.path("f1")])
        XCTAssertEqual(try reader.pread(at: 1000, count: 21368), Data(replaced.utf8.dropFirst(1000)))
        try reader.close()
        try await waitUntilSettled(mount)
        try await waitForBox("f1", text: String(repeating: "n", count: 3442) + String(repeating: " ", count: 1494))
    }
}
