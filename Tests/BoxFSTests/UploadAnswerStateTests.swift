import BoxAPI
import Foundation
import Testing
import WriteBack

@testable import BoxFS

/// The core's decisions on the uploader's answers (`CoreState+UploadAnswers`), as pure values: a `CoreState` built
/// here, no filesystem, no Box, no lock. Each checks the tree and the local files in the one step that changes both.
@Suite struct UploadAnswerStateTests {
    static let root = BoxItem(id: "0", kind: .folder, name: "", parentID: nil)

    /// A state whose folder `0` is listed and holds the local file `a.txt` (number 1) waiting in entry 7, new to Box
    /// unless `base` is given, with a node (inode answered) the kernel looked up.
    static func state(base: BoxItem? = nil) throws -> (CoreState, inode: UInt64) {
        var state = CoreState(tree: InodeTable(root: root))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("answer-\(UUID().uuidString)").path
        let staging = try StagingFile(path: path, create: true)
        staging.remove()
        var item = BoxItem(id: LocalFiles.localID(1), kind: .file, name: "a.txt", parentID: "0")
        if let base { item.id = base.id }
        state.locals.add(LocalFiles.File(number: 1, staging: staging, item: item, base: base, entryID: 7))
        _ = state.tree.store(listing: base.map { [$0] } ?? [], folderID: "0", at: .now)
        let inode = state.tree.remember(item, parentInode: InodeTable.rootInode).inode
        return (state, inode)
    }

    static func landed(id: String, name: String = "a.txt", sha1: String = "s1") -> BoxItem {
        var item = BoxItem(id: id, kind: .file, name: name, parentID: "0")
        item.etag = "1"
        item.sha1 = sha1
        return item
    }

    @Test func aNewFilesLandingRebindsItsNodeAndListsItInOneStep() throws {
        var (state, inode) = try Self.state()
        let landing = state.uploadLanded(Self.landed(id: "900"), entryID: 7,
                                         target: .newFile(parentID: "0", name: "a.txt"), isFinal: true)
        guard case .rebased(let old, let now) = landing else { Issue.record("landing \(landing)"); return }
        #expect(old.id == LocalFiles.localID(1) && now.id == "900")
        #expect(state.tree.inode(forItemID: "900") == inode, "the kernel's inode now stands for the Box id")
        #expect(state.tree.inode(forItemID: LocalFiles.localID(1)) == nil)
        #expect(state.tree.listings["0"]?.item(id: "900")?.name == "a.txt", "the folder's listing shows it")
        #expect(state.locals.file(1)?.phase == .clean && state.locals.file(1)?.base?.id == "900")
    }

    @Test func aLandingThatIsNotTheLastAnswerKeepsTheFileWaiting() throws {
        var (state, _) = try Self.state()
        _ = state.uploadLanded(Self.landed(id: "900"), entryID: 7, target: .newFile(parentID: "0", name: "a.txt"),
                               isFinal: false)
        #expect(state.locals.file(1)?.phase == .waiting(entryID: 7))
    }

    @Test func aFileRenamedWhileOnTheWireIsShownAtItsNewName() throws {
        var (state, inode) = try Self.state()
        state.locals.update(1) { $0.item.name = "b.txt" }
        let landing = state.uploadLanded(Self.landed(id: "900"), entryID: 7,
                                         target: .newFile(parentID: "0", name: "a.txt"), isFinal: true)
        guard case .rebased(_, let now) = landing else { Issue.record("landing \(landing)"); return }
        #expect(now.name == "b.txt", "the façade moves the Box file to the name shown")
        #expect(state.tree.node(inode)?.item.name == "b.txt")
        #expect(state.tree.listings["0"]?.item(id: "900")?.name == "b.txt")
    }

    @Test func aLandingForAFileGoneHereIsAnOrphan() throws {
        var (state, _) = try Self.state()
        _ = state.locals.update(1) { $0.unlink(inode: nil) }
        #expect(state.uploadLanded(Self.landed(id: "900"), entryID: 7, target: .newFile(parentID: "0", name: "a.txt"),
                                   isFinal: true) == .orphan)
    }

    @Test func aNewFileRenamedOverAnotherIsRedirectedAndWhatLandedIsRemoved() throws {
        var (state, _) = try Self.state()
        let other = Self.landed(id: "500", sha1: "s0")
        state.locals.update(1) { file in
            file.rebase(on: other)
            file.supersedesNewUpload = true
        }
        let landing = state.uploadLanded(Self.landed(id: "900"), entryID: 7,
                                         target: .newFile(parentID: "0", name: "a.txt"), isFinal: true)
        #expect(landing == .redirected(deleteLanded: true))
        #expect(state.locals.file(1)?.phase == .clean)
        #expect(state.tree.listings["0"]?.item(id: "900") == nil, "what landed is not listed")
    }

    @Test func aConflictMovesTheLocalContentToItsCopyAndDropsTheListingInOneStep() throws {
        let base = Self.landed(id: "500", sha1: "s0")
        var (state, inode) = try Self.state(base: base)
        let (moved, invalidated) = state.uploadConflicted(
            entryID: 7, original: .newVersion(fileID: "500", parentID: "0", name: "a.txt", baseETag: "1", baseSHA1: "s0"),
            copyName: "a (conflict).txt")
        #expect(moved && invalidated == inode, "the kernel drops what it cached for the original's inode")
        #expect(state.locals.file(1)?.item.name == "a (conflict).txt" && state.locals.file(1)?.isNewToBox == true)
        #expect(state.tree.listings["0"] == nil, "the original's folder is listed again")
        let none = state.uploadConflicted(entryID: 8, original: .newFile(parentID: "0", name: "x"), copyName: "y")
        #expect(!none.moved && none.inode == nil)
    }

    @Test func aVersionWhoseFileIsGoneBecomesNewToBoxAndItsNodeFollows() throws {
        let base = Self.landed(id: "500", sha1: "s0")
        var (state, inode) = try Self.state(base: base)
        state.uploadBecameNewFile(entryID: 7)
        #expect(state.locals.file(1)?.isNewToBox == true)
        #expect(state.tree.inode(forItemID: LocalFiles.localID(1)) == inode)
        #expect(state.tree.inode(forItemID: "500") == nil)
    }
}
