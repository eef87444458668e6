import BoxAPI
import Testing

@testable import BoxFS

/// A cached listing kept up to date in place (the mount's own uploads, renames and deletes): after any sequence
/// of changes, its entries are those of a listing rebuilt from scratch, and every index finds them.
@Suite struct ListingIndexTests {
    /// What `upsert` and `remove` promise, written the slow way: the entries with that id or name go, the item
    /// comes in.
    static func reference(_ items: [BoxItem], upserting item: BoxItem) -> [BoxItem] {
        items.filter { $0.id != item.id && !BoxName.same($0.name, item.name) } + [item]
    }

    /// A small deterministic generator (SplitMix64), so a failure replays.
    struct Steps: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var mixed = state
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            return mixed ^ (mixed >> 31)
        }
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func changesInPlaceKeepTheEntriesAndIndexesOfARebuiltListing(seed: UInt64) {
        var random = Steps(state: seed)
        // Few ids and names, some differing only in case, so that replacements by id, by name and both happen.
        let names = ["a", "A", "b", "c.txt", "C.TXT", "d", "e", "f"]
        let start = (0..<4).map { BoxItem(id: "\($0)", kind: .file, name: names[$0]) }
        var listing = InodeTable.Listing(items: start, fetchedAt: .now)
        var expected = start
        for step in 0..<400 {
            if Int.random(in: 0..<4, using: &random) == 0 {
                let id = "\(Int.random(in: 0..<10, using: &random))"
                let before = listing.items.map(\.id)
                listing.remove(id: id)
                expected.removeAll { $0.id == id }
                #expect(listing.items.map(\.id) == before.filter { $0 != id }, "step \(step): the others keep their order")
            } else {
                let item = BoxItem(id: "\(Int.random(in: 0..<10, using: &random))", kind: .file,
                                   name: names.randomElement(using: &random)!, size: Int64(step))
                listing.upsert(item)
                expected = Self.reference(expected, upserting: item)
            }
            #expect(Set(listing.items.map(\.id)) == Set(expected.map(\.id)), "step \(step)")
            for item in expected {
                #expect(listing.item(id: item.id) == item, "step \(step): by id \(item.id)")
                #expect(listing.position(of: item.name).map { listing.items[$0] } == item, "step \(step): by name")
                #expect(listing.mayHoldOnBox(item.name.uppercased()), "step \(step): case-folded \(item.name)")
            }
            for name in names where !expected.contains(where: { BoxName.same($0.name, name) }) {
                #expect(listing.position(of: name) == nil, "step \(step): \(name) is gone")
            }
        }
    }

    @Test func aRenamedEntryIsFoundByItsNewNameOnly() {
        var listing = InodeTable.Listing(
            items: [BoxItem(id: "1", kind: .file, name: "a"), BoxItem(id: "2", kind: .file, name: "b")], fetchedAt: .now)
        listing.upsert(BoxItem(id: "1", kind: .file, name: "c"))
        #expect(listing.position(of: "a") == nil)
        #expect(listing.position(of: "c").map { listing.items[$0].id } == "1")
        #expect(listing.items.map(\.name) == ["c", "b"], "renamed in place")
    }

    @Test func aNameNoEntryHasIsSurelyFree() {
        let listing = InodeTable.Listing(
            items: [BoxItem(id: "1", kind: .file, name: "Report.pdf")], fetchedAt: .now)
        #expect(listing.mayHoldOnBox("report.PDF"))
        #expect(!listing.mayHoldOnBox("other.pdf"))
    }
}
