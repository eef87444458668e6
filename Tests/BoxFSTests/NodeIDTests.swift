import BoxAPI
import XCTest

@testable import BoxFS

/// `NodeID` in the inode table: each kind of node is keyed by its own case, a new file's upload landing rebinds its
/// inode from `.local` to `.box`, and a detached node stands for no id while the kernel still holds it.
final class NodeIDTests: XCTestCase {
    private let root = BoxItem(id: "0", kind: .folder, name: "All Files")

    private func file(_ id: String, _ name: String) -> BoxItem {
        BoxItem(id: id, kind: .file, name: name, etag: "1", parentID: "0")
    }

    func testAnItemsIDIsBoxUnlessItWasMadeUpForALocalFile() {
        XCTAssertEqual(NodeID(itemID: "123"), .box("123"))
        XCTAssertEqual(NodeID(itemID: LocalFiles.localID(7)), .local(7))
        XCTAssertEqual(NodeID.box("123").boxID, "123")
        XCTAssertNil(NodeID.local(7).boxID)
        XCTAssertNil(NodeID.detached(7).boxID)
        XCTAssertTrue(NodeID.detached(7).isDetached)
        XCTAssertFalse(NodeID.local(7).isDetached)
    }

    func testTheTableKeysEachNodeByItsOwnCase() throws {
        var tree = InodeTable(root: root)
        XCTAssertEqual(tree.node(InodeTable.rootInode)?.id, .box("0"))
        let onBox = tree.remember(file("5", "a.txt"), parentInode: InodeTable.rootInode)
        let local = tree.remember(file(LocalFiles.localID(3), "new.txt"), parentInode: InodeTable.rootInode)
        XCTAssertEqual(onBox.id, .box("5"))
        XCTAssertEqual(local.id, .local(3))
        XCTAssertEqual(tree.inode(for: .box("5")), onBox.inode)
        XCTAssertEqual(tree.inode(for: .local(3)), local.inode)
        XCTAssertNil(tree.inode(for: .box("3")), "a local number is never a Box id")
        XCTAssertNil(tree.inode(for: .local(5)))
        XCTAssertEqual(tree.remember(file(LocalFiles.localID(3), "new.txt"), parentInode: 1).inode, local.inode,
                       "the same local file again is the same node")
    }

    func testAnUploadLandingRebindsTheLocalInodeToItsBoxID() throws {
        var tree = InodeTable(root: root)
        let local = tree.remember(file(LocalFiles.localID(3), "new.txt"), parentInode: InodeTable.rootInode)
        tree.rebind(id: LocalFiles.localID(3), to: file("77", "new.txt"))
        XCTAssertEqual(tree.node(local.inode)?.id, .box("77"), "the inode stays, standing for the Box file now")
        XCTAssertEqual(tree.inode(for: .box("77")), local.inode)
        XCTAssertNil(tree.inode(for: .local(3)), "the made-up id names no node any more")
        XCTAssertEqual(tree.currentID(inode: local.inode, else: LocalFiles.localID(3)), "77")
        XCTAssertEqual(tree.remember(file("77", "new.txt"), parentInode: 1).inode, local.inode,
                       "a lookup of the Box file finds the same inode")
    }

    func testRebindingOntoAnIDAnotherNodeHoldsDetachesThatNode() throws {
        var tree = InodeTable(root: root)
        let replaced = tree.remember(file("5", "a.txt"), parentInode: InodeTable.rootInode)
        let source = tree.remember(file(LocalFiles.localID(3), "b.txt"), parentInode: InodeTable.rootInode)
        // `rename b.txt a.txt`: the source's content becomes the next version of Box file 5.
        tree.rebind(id: LocalFiles.localID(3), to: file("5", "a.txt"))
        XCTAssertEqual(tree.inode(for: .box("5")), source.inode)
        let detached = try XCTUnwrap(tree.node(replaced.inode))
        XCTAssertEqual(detached.id, .detached(replaced.inode))
        XCTAssertNil(detached.itemID, "a detached node stands for no item")
        XCTAssertEqual(detached.item.id, "5", "its item stays as it was shown: no made-up id is written into it")
        XCTAssertEqual(tree.currentID(inode: replaced.inode, else: "fallback"), "fallback")
        // The kernel forgetting the detached inode leaves the Box id's new node alone.
        XCTAssertEqual(tree.forget(replaced.inode, count: 1)?.id, .detached(replaced.inode))
        XCTAssertEqual(tree.inode(for: .box("5")), source.inode)
    }

    func testADetachedItemLookedUpAgainGetsAFreshInode() throws {
        var tree = InodeTable(root: root)
        let old = tree.remember(file("5", "a.txt"), parentInode: InodeTable.rootInode)
        tree.detach(id: "5")
        XCTAssertEqual(tree.node(old.inode)?.id, .detached(old.inode), "the kernel still holds it")
        XCTAssertNil(tree.inode(for: .box("5")))
        let fresh = tree.remember(file("5", "a.txt"), parentInode: InodeTable.rootInode)
        XCTAssertNotEqual(fresh.inode, old.inode)
        XCTAssertEqual(fresh.id, .box("5"))
        _ = tree.forget(old.inode, count: 1)
        XCTAssertEqual(tree.inode(for: .box("5")), fresh.inode, "forgetting the old inode keeps the fresh one")
        XCTAssertNil(tree.node(old.inode))
    }
}
