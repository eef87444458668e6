import BoxAPI
import Foundation
import Testing

@testable import BoxFS

/// What a caller of `listing(of:)` shows from the listing it waited for (`CoreState.shownListing`), on a `CoreState`
/// built here: the tree's listing as it is when the caller resumes, not the caller's copy of what was stored.
@Suite struct ShownListingStateTests {
    static let root = BoxItem(id: "0", kind: .folder, name: "", parentID: nil)

    static func file(_ id: String, _ name: String) -> BoxItem {
        BoxItem(id: id, kind: .file, name: name, size: 3, parentID: "0")
    }

    /// A state whose folder `0` was just stored with `g` alone, and that stored listing as a caller holds it.
    static func stored() -> (CoreState, StoredListing) {
        var state = CoreState(tree: InodeTable(root: root))
        _ = state.tree.store(listing: [file("10", "g")], folderID: "0", at: .now)
        let items = state.tree.listings["0"]?.items ?? []
        return (state, StoredListing(items: items, ownChangesAt: state.tree.ownChanges.current))
    }

    @Test func anUploadLandingAfterTheStoreIsShown() {
        var (state, stored) = Self.stored()
        state.tree.upsert(Self.file("11", "f1"), inFolder: "0")
        let names = state.shownListing(stored, folderID: "0")?.map(\.name).sorted()
        #expect(names == ["f1", "g"], "the tree's listing, which the landing reached")
    }

    @Test func aDroppedListingIsShownAsStoredWhenTheMountChangedNothingSince() {
        var (state, stored) = Self.stored()
        _ = state.tree.evictListing(of: "0")
        #expect(state.shownListing(stored, folderID: "0")?.map(\.name) == ["g"])
    }

    @Test func aDroppedListingIsListedAgainWhenTheMountChangedOneSince() {
        var (state, stored) = Self.stored()
        state.tree.upsert(Self.file("11", "f1"), inFolder: "0")
        _ = state.tree.evictListing(of: "0")
        #expect(state.shownListing(stored, folderID: "0") == nil, "the copy lacks f1: the caller lists again")
    }
}
