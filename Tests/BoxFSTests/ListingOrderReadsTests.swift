import BoxAPI
import Testing

@testable import BoxFS

/// The rule that decides which files' download locations to learn ahead of their reads.
@Suite struct ListingOrderReadsTests {
    /// A listing: `f` is a 4 KiB file, `e` an empty file, `d` a folder; ids are the kind letter and the position.
    static func listing(_ pattern: String, prefix: String = "") -> [BoxItem] {
        pattern.enumerated().map { position, kind in
            let id = "\(prefix)\(kind)\(position)"
            switch kind {
            case "d": return BoxItem(id: id, kind: .folder, name: id)
            case "e": return BoxItem(id: id, kind: .file, name: id, size: 0)
            default: return BoxItem(id: id, kind: .file, name: id, size: 4096)
            }
        }
    }

    static func files(_ count: Int) -> [BoxItem] { listing(String(repeating: "f", count: count)) }

    /// Opens the files at `positions` one after the other; answers the ids named at each open.
    static func open(_ positions: [Int], of listing: [BoxItem], folder: String = "A",
                     in rule: inout ListingOrderReads) -> [[String]] {
        positions.map { rule.opened(position: $0, of: listing, folderID: folder).map(\.id) }
    }

    static func ids(_ positions: ClosedRange<Int>) -> [String] { positions.map { "f\($0)" } }

    @Test func aWalkOfFoldersNamesTheNextFourFoldersAfterTwoInOrderAndEndsOnAJump() {
        var rule = ListingOrderReads.folderWalk
        // Folders at 0, 1, 3, 4, 6, 7, 8, 9; files (also empty ones) between them do not break the walk.
        let listing = Self.listing("ddfddeddddf")
        let named = Self.open([0, 1, 3], of: listing, in: &rule)
        #expect(named == [[], ["d3", "d4", "d6", "d7"], ["d8"]])
        #expect(rule.runLength(in: "A") == 3)
        #expect(Self.open([7], of: listing, in: &rule) == [[]], "a jump ahead starts the walk anew")
        #expect(rule.runLength(in: "A") == 0)
        #expect(Self.open([2], of: listing, in: &rule) == [[]], "a file is no folder of the walk")
    }

    @Test func startsOnlyOnceTheRunIsThreeOpensLong() {
        var rule = ListingOrderReads()
        let named = Self.open([0, 1, 2], of: Self.files(40), in: &rule)
        #expect(named[0].isEmpty && named[1].isEmpty)
        #expect(named[2] == Self.ids(3...18))
    }

    @Test func aRunThatStartsMidFolderNeedsThreeMoreOpens() {
        var rule = ListingOrderReads()
        let named = Self.open([10, 11, 12, 13], of: Self.files(40), in: &rule)
        #expect(named[0...2].allSatisfy { $0.isEmpty })
        #expect(named[3] == Self.ids(14...29))
    }

    @Test func aJumpAheadOrBackOrAReopenStartsTheRunAnew() {
        let listing = Self.files(60)
        for jump in [30, 1, 2] {
            var rule = ListingOrderReads()
            _ = Self.open([0, 1, 2], of: listing, in: &rule)
            let named = Self.open([jump, jump + 1, jump + 2], of: listing, in: &rule)
            #expect(named.allSatisfy { $0.isEmpty }, "after a jump to \(jump), two in-order opens name nothing")
        }
        var rule = ListingOrderReads()
        _ = Self.open([0, 1, 2, 30, 31, 32], of: listing, in: &rule)
        #expect(Self.open([33], of: listing, in: &rule)[0] == Self.ids(34...49))
    }

    @Test func shuffledOpensNameNothing() {
        var rule = ListingOrderReads()
        let order = [0, 7, 14, 21, 28, 5, 12, 19, 26, 3, 10, 17, 24, 1, 8, 15, 22, 29]
        #expect(Self.open(order, of: Self.files(30), in: &rule).allSatisfy { $0.isEmpty })
    }

    @Test func neverNamesAFileTwice() {
        var rule = ListingOrderReads()
        let listing = Self.files(50)
        // A walk, a re-walk from the start, and a walk again from the middle.
        let named = Self.open(Array(0..<50) + Array(0..<50) + Array(20..<50), of: listing, in: &rule).flatMap { $0 }
        #expect(named.count == Set(named).count)
        #expect(Set(named) == Set(Self.ids(3...49)))
    }

    @Test func namesAtMostSixteenFilesAheadFoldersNotCounted() {
        var rule = ListingOrderReads()
        let listing = Self.listing("ffffddfffffdddffffffffffffffffdfffffffffff")
        let files = listing.indices.filter { listing[$0].kind == .file }
        for (rank, position) in files.enumerated() {
            let named = rule.opened(position: position, of: listing, folderID: "A")
            let ranks = named.map { item in files.firstIndex { listing[$0].id == item.id }! }
            #expect(ranks.allSatisfy { $0 > rank && $0 <= rank + 16 }, "opening file \(rank) named ranks \(ranks)")
            if rank >= 2, rank + 16 < files.count { #expect(ranks.contains(rank + 16)) }
        }
    }

    @Test func emptyFilesAreNeverNamedAndMayBeSkippedByTheWalker() {
        var rule = ListingOrderReads()
        let listing = Self.listing("fefeffeeff" + String(repeating: "f", count: 20))
        // The walker skips the empty files (positions 1, 3, 6, 7): the run goes on regardless.
        let named = Self.open([0, 2, 4, 5, 8], of: listing, in: &rule).flatMap { $0 }
        #expect(!named.isEmpty)
        #expect(named.allSatisfy { $0.hasPrefix("f") })
        // A walker that opens empty files too keeps its run as well.
        var opensAll = ListingOrderReads()
        let all = Self.open(Array(0..<5), of: listing, in: &opensAll)
        #expect(all[2] == ["f4", "f5", "f8", "f9", "f10", "f11", "f12", "f13", "f14", "f15", "f16", "f17", "f18"])
    }

    @Test func aSubfolderWalkInterruptsTheParentsRunWithoutEndingIt() {
        var rule = ListingOrderReads()
        let parent = Self.listing("fffd" + String(repeating: "f", count: 30))
        let child = Self.listing(String(repeating: "f", count: 10), prefix: "S")
        #expect(Self.open([0, 1, 2], of: parent, folder: "P", in: &rule)[2].count == 16)
        let inChild = Self.open(Array(0..<10), of: child, folder: "S", in: &rule)
        #expect(inChild[2].first == "Sf3", "the subfolder's own run starts after three opens")
        // Back in the parent: the file after the subfolder continues the run.
        #expect(Self.open([4], of: parent, folder: "P", in: &rule)[0] == ["f20"])
    }

    @Test func followsOnlyAFewFoldersAtOnce() {
        var rule = ListingOrderReads()
        let listing = Self.files(5)
        for folder in 0..<100 { _ = Self.open([0, 1], of: listing, folder: "F\(folder)", in: &rule) }
        #expect(rule.followedFolders == rule.folderCapacity)
        // The oldest folder was forgotten: continuing there starts a new run, so it names nothing.
        #expect(Self.open([2], of: listing, folder: "F0", in: &rule)[0].isEmpty)
        #expect(Self.open([2], of: listing, folder: "F99", in: &rule)[0] == ["f3", "f4"])
    }

    @Test func aRefreshedListingIsFollowedByID() {
        var rule = ListingOrderReads()
        let listing = Self.files(30)
        _ = Self.open([0, 1], of: listing, in: &rule)
        // Two items came in front of the folder's files: the previous file is found where it is now.
        let refreshed = Self.listing("dd", prefix: "new") + listing
        #expect(Self.open([4], of: refreshed, in: &rule)[0] == Self.ids(3...18))
    }
}
