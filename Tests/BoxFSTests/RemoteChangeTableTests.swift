import BoxAPI
import XCTest

@testable import BoxFS

/// `InodeTable.applyRemoteChange`: what a change reported by Box's event stream does to the cached tree.
final class RemoteChangeTableTests: XCTestCase {
    private let root = BoxItem(id: "0", kind: .folder, name: "All Files")

    private func file(_ id: String, _ name: String, in parent: String, etag: String, sequence: String? = nil) -> BoxItem {
        BoxItem(id: id, kind: .file, name: name, etag: etag, sequenceID: sequence ?? etag, parentID: parent)
    }

    private func table() -> InodeTable {
        var table = InodeTable(root: root)
        let sub = BoxItem(id: "10", kind: .folder, name: "sub", etag: "0", sequenceID: "0", parentID: "0")
        _ = table.store(listing: [file("1", "a.txt", in: "0", etag: "1"), sub], folderID: "0", at: .now)
        _ = table.store(listing: [file("2", "b.txt", in: "10", etag: "1")], folderID: "10", at: .now)
        _ = table.remember(sub, parentInode: InodeTable.rootInode)
        return table
    }

    func testWhatTheTreeAlreadyHoldsChangesNothing() {
        var tree = table()
        XCTAssertNil(tree.applyRemoteChange(file("1", "a.txt", in: "0", etag: "1"), removed: false))
        XCTAssertNil(tree.applyRemoteChange(file("1", "a.txt", in: "0", etag: "0", sequence: "0"), removed: false),
                     "an older state than the tree's")
        XCTAssertNil(tree.applyRemoteChange(file("9", "gone.txt", in: "0", etag: "3"), removed: true),
                     "a delete of something the tree does not hold")
        XCTAssertNil(tree.applyRemoteChange(file("8", "x.txt", in: "77", etag: "0"), removed: false),
                     "a change in a folder the mount does not know")
        XCTAssertNotNil(tree.listings["0"])
        XCTAssertNotNil(tree.listings["10"])
    }

    func testANodeThatAlreadyHoldsTheStateChangesNothingWhenNoListingIsCached() throws {
        var tree = table()
        let b = file("2", "b.txt", in: "10", etag: "1")
        _ = tree.remember(b, parentInode: try XCTUnwrap(tree.inode(forItemID: "10")))
        tree.invalidateListing(folderID: "10")
        XCTAssertNil(tree.applyRemoteChange(b, removed: false), "the mount's own upload into a folder whose listing went")
        XCTAssertNotNil(tree.applyRemoteChange(file("2", "b.txt", in: "10", etag: "2"), removed: false), "a new version")
    }

    func testAMoveDropsTheOldAndTheNewFoldersListingsAndNamesBothEntries() throws {
        var tree = table()
        let effect = try XCTUnwrap(tree.applyRemoteChange(file("1", "a.txt", in: "10", etag: "2"), removed: false))
        XCTAssertNil(tree.listings["0"])
        XCTAssertNil(tree.listings["10"])
        XCTAssertEqual(Set(effect.folderIDs), ["0", "10"])
        let subInode = try XCTUnwrap(tree.inode(forItemID: "10"))
        XCTAssertEqual(effect.entries.map(\.parent), [InodeTable.rootInode, subInode])
        XCTAssertEqual(effect.entries.map(\.name), ["a.txt", "a.txt"])
    }

    func testAListingFetchedBeforeTheChangeIsStoredStale() {
        var tree = table()
        let start = tree.ownChanges.beginFetch()
        _ = tree.applyRemoteChange(file("3", "new.txt", in: "0", etag: "0"), removed: false)
        _ = tree.store(listing: [], folderID: "0", at: .now, since: start)
        tree.endListingFetch(start)
        XCTAssertNotNil(tree.listings["0"])
        XCTAssertNil(tree.freshListing(folderID: "0", ttl: .seconds(60), now: .now), "shown once, then fetched again")
    }

    /// While fetches overlap without a pause, the marks older than every fetch in flight are trimmed (past 1,024),
    /// and a fetch that began before a change still sees its mark.
    func testMarksOlderThanEveryFetchInFlightAreTrimmed() {
        var tree = table()
        let first = tree.ownChanges.beginFetch()
        for folder in 0..<1100 {
            tree.remoteChangeMarks["folder \(folder)"] = tree.ownChanges.mark()  // what an event in that folder leaves
        }
        let second = tree.ownChanges.beginFetch()
        tree.endListingFetch(first)
        XCTAssertTrue(tree.remoteChangeMarks.isEmpty, "no fetch in flight began before them")
        _ = tree.applyRemoteChange(file("3", "new.txt", in: "0", etag: "0"), removed: false)
        for folder in 0..<1100 {
            let other = tree.ownChanges.beginFetch()
            tree.remoteChangeMarks["folder \(folder)"] = tree.ownChanges.mark()
            tree.endListingFetch(other)
        }
        _ = tree.store(listing: [], folderID: "0", at: .now, since: second)
        XCTAssertNil(tree.freshListing(folderID: "0", ttl: .seconds(60), now: .now), "stored stale")
        tree.endListingFetch(second)
        XCTAssertTrue(tree.remoteChangeMarks.isEmpty)
    }

    /// With no fetch in flight no mark can matter: none is kept (a mount following events for days would keep one
    /// per folder it ever saw change).
    func testMarksGoWhenNoFetchIsInFlight() {
        var tree = table()
        let start = tree.ownChanges.beginFetch()
        _ = tree.applyRemoteChange(file("3", "new.txt", in: "0", etag: "0"), removed: false)
        _ = tree.applyRemoteChange(file("4", "new.txt", in: "10", etag: "0"), removed: false)
        XCTAssertEqual(Set(tree.remoteChangeMarks.keys), ["0", "10"])
        tree.endListingFetch(start)
        XCTAssertTrue(tree.remoteChangeMarks.isEmpty)
        let later = tree.ownChanges.beginFetch()
        _ = tree.store(listing: [], folderID: "0", at: .now, since: later)
        XCTAssertNotNil(tree.freshListing(folderID: "0", ttl: .seconds(60), now: .now), "a later fetch is fresh")
        tree.endListingFetch(later)
    }
}
