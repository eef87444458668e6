import BoxAPI
import Foundation
import Testing

@testable import BoxFS

/// A local file's lifecycle (`LocalFiles.File.Phase`) and the state it keeps in `LocalFiles`, as pure values: no
/// filesystem, no Box.
@Suite struct LocalFilePhaseTests {
    private static func file(entryID: Int64? = nil) throws -> LocalFiles.File {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("phase-\(UUID().uuidString)").path
        let staging = try StagingFile(path: path, create: true)
        staging.remove()
        let item = BoxItem(id: LocalFiles.localID(1), kind: .file, name: "a.txt", parentID: "0")
        return LocalFiles.File(number: 1, staging: staging, item: item, base: nil, entryID: entryID)
    }

    @Test func aJournaledFileWaitsUntilItsOwnEntryEnds() throws {
        var file = try Self.file()
        #expect(file.phase == .clean)
        let journaled = file.journaled(7)
        #expect(journaled)
        #expect(file.phase == .waiting(entryID: 7) && file.entryID == 7)
        file.uploadEnded(6)
        #expect(file.entryID == 7, "another entry's end leaves it waiting")
        let again = file.journaled(8)
        #expect(again)
        file.uploadEnded(7)
        #expect(file.entryID == 8, "a newer entry is kept when an older one ends")
        file.uploadEnded(8)
        #expect(file.phase == .clean)
    }

    @Test func unlinkingDropsTheEntryAndNothingJournalsItAgain() throws {
        var file = try Self.file(entryID: 3)
        let dropped = file.unlink(inode: 42)
        #expect(dropped == 3, "the entry to drop is answered")
        #expect(file.phase == .unlinked(inode: 42) && file.entryID == nil && file.unlinked)
        let journaled = file.journaled(4)
        #expect(!journaled, "an unlinked file is never journaled again")
        #expect(file.entryID == nil)
        let droppedAgain = file.unlink(inode: 99)
        #expect(droppedAgain == nil)
        #expect(file.unlinkedInode == 42, "unlinked again, it keeps its first inode")
    }

    @Test func localFilesFindAFileByItsEntryOnlyWhileItWaits() throws {
        var files = LocalFiles()
        files.add(try Self.file(entryID: 5))
        #expect(files.file(entryID: 5)?.number == 1)
        files.forgetEntry(5, of: 1)
        #expect(files.file(entryID: 5) == nil)
        #expect(files.file(1)?.phase == .clean)
        _ = files.update(1) { $0.journaled(6) }
        #expect(files.file(entryID: 6)?.number == 1)
        _ = files.update(1) { $0.unlink(inode: nil) }
        #expect(files.file(entryID: 6) == nil, "an unlinked file is not found by the entry it dropped")
    }
}
