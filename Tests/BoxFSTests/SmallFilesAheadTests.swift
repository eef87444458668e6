import BoxAPI
import Testing

@testable import BoxFS

/// The rule that decides which small files' content a walk in listing order gets fetched ahead, within its bounds.
@Suite struct SmallFilesAheadTests {
    /// A listing: `f` a 4 KiB file, `m` a 600 KiB file, `b` a 2 MiB file (not small), `e` an empty file, `d` a
    /// folder; ids are the kind letter and the position.
    static func listing(_ pattern: String, version: String = "1") -> [BoxItem] {
        pattern.enumerated().map { position, kind in
            let id = "\(kind)\(position)"
            let size: Int64 = switch kind {
            case "m": 600 << 10
            case "b": 2 << 20
            case "e", "d": 0
            default: 4096
            }
            return BoxItem(id: id, kind: kind == "d" ? .folder : .file, name: id, size: size,
                           sha1: "s", fileVersionID: "\(id)-v\(version)")
        }
    }

    /// Opens `positions` of `listing` in turn the way the file system does (`ListingOrderReads` decides whether it is a
    /// walk); answers each open's plan as ids.
    static func open(_ positions: [Int], of listing: [BoxItem], folder: String = "A", reads: inout ListingOrderReads,
                     ahead: inout SmallFilesAhead) -> [(fetch: [String], cancel: [String])] {
        positions.map { position in
            _ = reads.opened(position: position, of: listing, folderID: folder)
            let run = reads.runLength(in: folder)
            let plan = ahead.opened(listing[position], position: position, of: listing, folderID: folder,
                                    walking: run >= reads.runLength, restarted: run == 0)
            return (plan.fetch.map(\.id), plan.cancel.map(\.id))
        }
    }

    @Test func aWalkFetchesAtMostNFilesAheadAndOneMoreAtEachOpen() {
        var reads = ListingOrderReads()
        var ahead = SmallFilesAhead()
        let listing = Self.listing(String(repeating: "f", count: 40))
        let plans = Self.open([0, 1, 2, 3, 4], of: listing, reads: &reads, ahead: &ahead)
        #expect(plans[0].fetch.isEmpty && plans[1].fetch.isEmpty, "no walk before three opens in order")
        #expect(plans[2].fetch == (3...10).map { "f\($0)" }, "the next eight files, in listing order")
        #expect(plans[3].fetch == ["f11"] && plans[4].fetch == ["f12"], "one more as the reader takes one")
        #expect(ahead.window.count == ahead.maximumFiles)
        #expect(plans.allSatisfy { $0.cancel.isEmpty }, "the files opened are read, not cancelled")
    }

    @Test func theBytesAheadStayWithinTheBound() {
        var reads = ListingOrderReads()
        var ahead = SmallFilesAhead()
        ahead.maximumBytes = 2 << 20  // three files of 600 KiB fit, not four
        let listing = Self.listing("fff" + String(repeating: "m", count: 20))
        let plans = Self.open([0, 1, 2, 3], of: listing, reads: &reads, ahead: &ahead)
        #expect(plans[2].fetch == ["m3", "m4", "m5"])
        #expect(ahead.windowBytes <= ahead.maximumBytes)
        #expect(plans[3].fetch == ["m6"], "room for one more once the reader took one")
        #expect(ahead.windowBytes <= ahead.maximumBytes)
    }

    @Test func filesThatAreNotSmallAndEmptyFilesAreNeverFetchedAheadNorCounted() {
        var reads = ListingOrderReads()
        var ahead = SmallFilesAhead()
        let listing = Self.listing("fffbebfbf" + String(repeating: "f", count: 10))
        let plans = Self.open([0, 1, 2], of: listing, reads: &reads, ahead: &ahead)
        #expect(plans[2].fetch == ["f6", "f8", "f9", "f10", "f11", "f12", "f13", "f14"])
    }

    @Test func anOpenOutOfOrderCancelsTheWholeWindow() {
        var reads = ListingOrderReads()
        var ahead = SmallFilesAhead()
        let listing = Self.listing(String(repeating: "f", count: 40))
        let plans = Self.open([0, 1, 2, 30], of: listing, reads: &reads, ahead: &ahead)
        #expect(plans[3].cancel == (3...10).map { "f\($0)" }, "the walk stopped: nothing more fetched for it")
        #expect(plans[3].fetch.isEmpty && ahead.window.isEmpty)
    }

    @Test func filesPassedOverAreCancelled() {
        var reads = ListingOrderReads()
        var ahead = SmallFilesAhead()
        let listing = Self.listing(String(repeating: "f", count: 40))
        _ = Self.open([0, 1, 2, 3], of: listing, reads: &reads, ahead: &ahead)
        // A walker that opens only some files (`find -newer … -exec`): a file skipped ends the walk (ListingOrderReads).
        let plan = Self.open([5], of: listing, reads: &reads, ahead: &ahead)[0]
        #expect(plan.cancel == ["f4"] + (6...11).map { "f\($0)" })
        #expect(!plan.cancel.contains("f5"), "the file opened is being read")
    }

    @Test func aWalkInAnotherFolderTakesTheWindowAndAMereOpenElsewhereDoesNot() {
        var reads = ListingOrderReads()
        var ahead = SmallFilesAhead()
        let a = Self.listing(String(repeating: "f", count: 40))
        let b = Self.listing(String(repeating: "f", count: 40), version: "2")
        _ = Self.open([0, 1, 2], of: a, folder: "A", reads: &reads, ahead: &ahead)
        let single = Self.open([7], of: b, folder: "B", reads: &reads, ahead: &ahead)[0]
        #expect(single.cancel.isEmpty && single.fetch.isEmpty && ahead.folderID == "A")
        // Its run starts at the jump back to 0: a walk from the fourth open in order on.
        let walk = Self.open([0, 1, 2, 3], of: b, folder: "B", reads: &reads, ahead: &ahead)
        #expect(walk[2].cancel.isEmpty && walk[2].fetch.isEmpty, "no walk yet: the jump back to 0 started the run anew")
        #expect(walk[3].cancel == (3...10).map { "f\($0)" }, "A's window cancelled once B is walked")
        #expect(walk[3].fetch.count == ahead.maximumFiles && ahead.folderID == "B")
    }

    @Test func aFileOpenedInAnotherVersionThanTheOneFetchedAheadIsCancelled() {
        var reads = ListingOrderReads()
        var ahead = SmallFilesAhead()
        let listing = Self.listing(String(repeating: "f", count: 40))
        _ = Self.open([0, 1, 2], of: listing, reads: &reads, ahead: &ahead)
        var changed = listing
        changed[3] = BoxItem(id: "f3", kind: .file, name: "f3", size: 4096, sha1: "t", fileVersionID: "f3-v9")
        let plan = Self.open([3], of: changed, reads: &reads, ahead: &ahead)[0]
        #expect(plan.cancel == ["f3"], "the version fetched ahead is not the one opened")
        let cancelled = ahead.window.contains { $0.id == "f3" }
        #expect(!cancelled)
    }

    @Test func filesTheStoreRefusedLeaveTheWindowAndAreAskedForAgain() {
        var reads = ListingOrderReads()
        var ahead = SmallFilesAhead()
        let listing = Self.listing(String(repeating: "f", count: 40))
        _ = Self.open([0, 1, 2], of: listing, reads: &reads, ahead: &ahead)
        ahead.leave(["f9", "f10"])
        let plan = Self.open([3], of: listing, reads: &reads, ahead: &ahead)[0]
        #expect(plan.fetch == ["f9", "f10", "f11"])
    }
}
