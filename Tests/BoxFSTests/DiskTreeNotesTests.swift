import BoxAPI
import Foundation
import GRDB
import Testing

@testable import BoxFS

/// The tree on disk follows the memory tree: every path that stores, changes or drops a cached listing is noted for
/// the next write (`ListingCache.takeChanges`); a listing evicted as the disk holds it stays there only (read back
/// when used), and whatever could make that copy untrue deletes it; what is written reads back as it was.
@Suite struct DiskTreeNotesTests {
    static func file(_ id: String, _ name: String, in folder: String = "1") -> BoxItem {
        BoxItem(id: id, kind: .file, name: name, size: 3, etag: "0", sequenceID: "0", sha1: "abc", fileVersionID: "v\(id)",
                parentID: folder)
    }

    /// A new folder of its own, and the path of a tree database in it (not created).
    static func temporaryTreePath() throws -> (directory: URL, path: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("disktree-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return (directory, directory.appendingPathComponent("tree-0.sqlite").path)
    }

    @Test func everyChangeToAListingIsNotedAndADropIsNotedAsNoItems() {
        var table = InodeTable(root: BoxItem(id: "0", kind: .folder, name: "All Files"))
        table.listings.tracksChanges = true
        _ = table.store(listing: [Self.file("10", "a.txt")], folderID: "1", at: .now)
        _ = table.store(listing: [Self.file("20", "b.txt", in: "2")], folderID: "2", at: .now)
        #expect(Set(table.listings.takeChanges(at: .now).changes.map(\.folderID)) == ["1", "2"])
        #expect(table.listings.takeChanges(at: .now).changes.isEmpty, "the notes are taken once")

        table.listings["1"]?.upsert(Self.file("11", "c.txt"))
        #expect(table.listings.takeChanges(at: .now).changes.map { $0.items?.map(\.name) } == [["a.txt", "c.txt"]])

        table.listings["2"]?.upsert(Self.file("21", "d.txt", in: "2"))
        _ = table.evictListing(of: "2")
        let evicted = table.listings.takeChanges(at: .now).changes
        #expect(evicted.map(\.folderID) == ["2"] && evicted.first?.items?.map(\.name) == ["b.txt", "d.txt"],
                "a listing evicted before its change was written: the change is written, then it is on the disk only")
        #expect(table.listings.onDiskOnly["2"] != nil && table.listings["2"] == nil)
        #expect(table.listings.takeChanges(at: .now).changes.isEmpty, "written once")
        _ = table.store(listing: [Self.file("20", "b.txt", in: "2")], folderID: "2", at: .now)
        _ = table.listings.takeChanges(at: .now)

        _ = table.applyRemoteChange(Self.file("10", "renamed.txt"), removed: false)
        let changed = table.listings.takeChanges(at: .now).changes
        #expect(changed.map(\.folderID) == ["1"] && changed.first?.items == nil, "an event drops the listing on disk")

        _ = table.store(listing: [Self.file("10", "renamed.txt")], folderID: "1", at: .now)
        table.dropAllListings()
        let dropped = table.listings.takeChanges(at: .now)
        #expect(dropped.droppedAll && dropped.changes.isEmpty)
    }

    @Test func anEvictedListingTheDiskHoldsStaysThereAndIsReadBackUnlessSomethingMadeItUntrue() {
        var table = InodeTable(root: BoxItem(id: "0", kind: .folder, name: "All Files"))
        table.listings.tracksChanges = true
        _ = table.store(listing: [Self.file("10", "a.txt")], folderID: "1", at: .now)
        _ = table.store(listing: [Self.file("20", "b.txt", in: "2")], folderID: "2", at: .now)
        _ = table.listings.takeChanges(at: .now)
        _ = table.store(listing: [Self.file("30", "c.txt", in: "3")], folderID: "3", at: .now)
        _ = table.listings.takeChanges(at: .now)
        let evicted = ["1", "2", "3"].map { table.evictListing(of: $0) }
        #expect(evicted == [1, 1, 1])
        #expect(table.listings.takeChanges(at: .now).changes.isEmpty, "nothing to write: the disk holds them")
        #expect(Set(table.listings.onDiskOnly.keys) == ["1", "2", "3"] && table.listings.entryCount == 0)

        // Read back with nothing between: put in memory, no note.
        let serial = table.listings.diskSerial
        let back = InodeTable.Listing(items: [Self.file("10", "a.txt")], fetchedAt: .now)
        let restored = table.listings.restore(back, folderID: "1", serialAtRead: serial)
        #expect(restored)
        #expect(table.listings["1"]?.items.map(\.name) == ["a.txt"] && table.listings.onDiskOnly["1"] == nil)
        #expect(table.listings.takeChanges(at: .now).changes.isEmpty)

        // The mount's own change to a folder kept on the disk only: the copy is deleted, and a read that began
        // before it is not installed.
        let before = table.listings.diskSerial
        table.upsert(Self.file("22", "new.txt", in: "2"), inFolder: "2")
        let own = table.listings.takeChanges(at: .now)
        #expect(own.changes.map(\.folderID) == ["2"] && own.changes.first?.items == nil)
        #expect(table.listings.onDiskOnly["2"] == nil)
        let restoredAfterOwnChange = table.listings.restore(back, folderID: "2", serialAtRead: before)
        #expect(!restoredAfterOwnChange)

        // An event about an item no memory listing holds: the disk-only listings are asked which holds it.
        let touchedBefore = table.listings.diskSerial
        _ = table.applyRemoteChange(Self.file("30", "moved.txt", in: "9"), removed: false)
        let remote = table.listings.takeChanges(at: .now)
        #expect(remote.touchedItems == ["30"] && remote.diskOnly == ["3"])
        #expect(table.listings.diskSerial != touchedBefore)
        let restoredAfterEvent = table.listings.restore(back, folderID: "3", serialAtRead: touchedBefore)
        #expect(!restoredAfterEvent, "a read that raced it")

        // An event naming a folder kept on the disk only as the item's new parent: that copy goes at once.
        _ = table.applyRemoteChange(Self.file("40", "arrived.txt", in: "3"), removed: false)
        let arrived = table.listings.takeChanges(at: .now)
        #expect(arrived.changes.contains { $0.folderID == "3" && $0.items == nil })
        #expect(table.listings.onDiskOnly.isEmpty)
    }

    @Test func theDiskDeletesTheDiskOnlyListingsHoldingATouchedItemAndReadsTheRestBack() async throws {
        let (directory, path) = try Self.temporaryTreePath()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tree = try await DiskTree.open(path: path, logger: .init(label: "test"))
        let listed = Date(timeIntervalSince1970: 1_700_000_000)
        let read = try await tree.onQueue {
            tree.write(DiskTree.Changes(listings: [
                ("1", listed, [Self.file("10", "a.txt"), Self.file("11", "b.txt")]),
                ("2", listed, [Self.file("20", "c.txt", in: "2")]),
                ("3", listed, [Self.file("30", "d.txt", in: "3")]),
            ], position: "7"))
            // 30 is held by 3, which memory holds (not among the disk-only): kept.
            tree.write(DiskTree.Changes(touchedItems: ["11", "30", "99"], diskOnly: ["1", "2"]))
            return (tree.readListing(folderID: "1"), tree.readListing(folderID: "2"), tree.readListing(folderID: "3"))
        }
        #expect(read.0 == nil, "the disk-only listing holding a touched item is deleted")
        #expect(read.1?.items == [Self.file("20", "c.txt", in: "2")] && read.1?.fetchedAt == listed)
        #expect(read.2?.items.map(\.id) == ["30"])
        let index = try await DiskTree.open(path: path, logger: .init(label: "test")).loadIndex()
        #expect(index.position == "7" && Set(index.folders.map(\.folderID)) == ["2", "3"] && index.entryCount == 2)
    }

    @Test func aTreeKeptByAnEarlierVersionGainsItsItemRowsAndKeepsItsListings() async throws {
        let (directory, path) = try Self.temporaryTreePath()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A database as the first schema left it: one listing, no `listing_item`.
        let old = try DatabaseQueue(path: path)
        try DiskTreeSchema.migrator().migrate(old, upTo: "v1")
        let data = try JSONEncoder().encode([Self.file("10", "a.txt"), Self.file("11", "b.txt")].map(StoredItem.init))
        try await old.write { db in
            try db.execute(sql: "INSERT INTO listing (folder_id, fetched_at, items) VALUES ('1', 1700000000, ?)",
                           arguments: [data])
            try db.execute(sql: "INSERT INTO stream (id, position, saved_at) VALUES (1, '5', 1700000000)")
        }
        try old.close()

        let tree = try await DiskTree.open(path: path, logger: .init(label: "test"))
        let index = try await tree.loadIndex()
        #expect(index.position == "5" && index.folders.map(\.folderID) == ["1"] && index.entryCount == 2)
        let afterTouch = try await tree.onQueue {
            tree.write(DiskTree.Changes(touchedItems: ["11"], diskOnly: ["1"]))
            return tree.readListing(folderID: "1")
        }
        #expect(afterTouch == nil, "its items' rows were made: an event about one of them deletes it")
    }

    @Test func loadedListingsAreNotNotedAndWaitForTheCatchUp() {
        var table = InodeTable(root: BoxItem(id: "0", kind: .folder, name: "All Files"))
        table.listings.tracksChanges = true
        var listing = InodeTable.Listing(items: [Self.file("10", "a.txt")], fetchedAt: .now)
        listing.awaitingCatchUp = true
        table.listings.load(listing, folderID: "1")
        #expect(table.listings.takeChanges(at: .now).changes.isEmpty)
        #expect(table.freshListing(folderID: "1", ttl: .seconds(60), now: .now) == nil)
        table.listings.confirmLoaded(at: .now)
        #expect(table.freshListing(folderID: "1", ttl: .seconds(60), now: .now) != nil)
        #expect(table.listings.takeChanges(at: .now).changes.isEmpty)
    }

    @Test func aDamagedDatabaseIsMadeAgainEmpty() async throws {
        let (directory, path) = try Self.temporaryTreePath()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: path))
        let snapshot = try await DiskTree.open(path: path, logger: .init(label: "test")).load()
        #expect(snapshot.position == nil && snapshot.listings.isEmpty)
    }

    @Test func whatIsWrittenReadsBack() async throws {
        let (directory, path) = try Self.temporaryTreePath()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tree = try await DiskTree.open(path: path, logger: .init(label: "test"))
        var locked = Self.file("11", "locked.txt")
        locked.lock = BoxItem.Lock(id: "l", createdByID: "5", createdByLogin: "x@y", expiresAt: nil, isDownloadPrevented: true)
        let listed = Date(timeIntervalSince1970: 1_700_000_000)
        try await tree.onQueue { [locked] in
            tree.write(DiskTree.Changes(listings: [("1", listed, [Self.file("10", "a.txt"), locked]), ("2", listed, [])],
                                        position: "42"))
            tree.write(DiskTree.Changes(listings: [("2", listed, nil)]))
        }
        let snapshot = try await DiskTree.open(path: path, logger: .init(label: "test")).load()
        #expect(snapshot.position == "42")
        #expect(snapshot.listings.map(\.folderID) == ["1"])
        #expect(snapshot.listings.first?.items == [Self.file("10", "a.txt"), locked])
        #expect(snapshot.listings.first?.fetchedAt == listed)
    }
}

/// A large listing is rewritten at most every few seconds (its size in tens of thousands of entries); in between it is
/// deleted on disk, never left as it was.
@Suite struct DiskTreePacingTests {
    @Test func aLargeListingWrittenLatelyIsDeletedOnDiskThenWrittenOnceDue() {
        var pacing = DiskTreePacing()
        let start = ContinuousClock.now
        #expect(pacing.decide(folderID: "1", entries: 20_000, now: start) == .write)
        #expect(pacing.decide(folderID: "1", entries: 20_001, now: start + .seconds(1)) == .delete)
        #expect(pacing.deferred == ["1"])
        #expect(pacing.decide(folderID: "1", entries: 20_001, now: start + .seconds(1.5)) == .skip)
        #expect(pacing.decide(folderID: "1", entries: 20_001, now: start + .seconds(2)) == .write)
        #expect(pacing.deferred.isEmpty)
        #expect(pacing.decide(folderID: "2", entries: 9_999, now: start) == .write)
        #expect(pacing.decide(folderID: "2", entries: 9_999, now: start) == .write, "small listings are not paced")
        #expect(pacing.decide(folderID: "1", entries: nil, now: start + .seconds(2.1)) == .delete)
        _ = pacing.decide(folderID: "3", entries: 50_000, now: start)
        pacing.allDue()
        #expect(pacing.decide(folderID: "3", entries: 50_000, now: start + .seconds(1)) == .write)
    }
}
