import Foundation
import XCTest

@testable import BoxAPI

/// Folder listings and users from Box's recorded real responses.
final class RecordedListingDecodingTests: XCTestCase {
    private func page(_ name: String) throws -> ItemPageDTO {
        try BoxJSON.decode(ItemPageDTO.self, from: RecordedFixtures.data(name))
    }

    func testOffsetPagedFolderItems() throws {
        let listing = try page("Folders/GetFolderItems.json")
        XCTAssertFalse(listing.isMarkerPaged)
        XCTAssertEqual(listing.totalCount, 24)
        XCTAssertEqual(listing.offset, 0)
        XCTAssertEqual(listing.entries.map(\.item.id), ["11111", "22222"])
        XCTAssertEqual(listing.entries.map(\.item.kind), [.folder, .file])
        XCTAssertEqual(listing.entries.map(\.item.name), ["Test Folder", "testfile.jpg"])
        XCTAssertEqual(listing.entries[1].item.size, 0, "mini items have no size")

        let webLinks = try page("Folders/GetFolderItemsOffsetIterator1.json")
        XCTAssertEqual(webLinks.entries.map(\.item.kind), [.folder, .webLink])
        XCTAssertEqual(try page("Folders/GetFolderItemsOffsetIterator2.json").offset, 2)
    }

    func testMarkerPagedFolderItems() throws {
        let first = try page("Folders/GetFolderItemsMarkerIterator1.json")
        XCTAssertTrue(first.isMarkerPaged)
        XCTAssertEqual(first.nextMarker?.hasPrefix("eyJ0eXBlIjoiZm9sZGVyIi"), true)
        XCTAssertEqual(first.entries.map(\.item.name), ["TestFolder", "My Box Notes"])
        let second = try page("Folders/GetFolderItemsMarkerIterator2.json")
        XCTAssertEqual(second.entries[1].item.fileVersionID, "472444342408")
        XCTAssertEqual(second.entries[1].item.sha1, "5478aadc5202bc47aab00de0d49c9cc42837d12b")
    }

    func testEndOfMarkerPagingIsNullOrEmpty() throws {
        let valid = try page("PagingIterator/MarkerBasedPagingWithValidNext.json")
        XCTAssertEqual(valid.nextMarker, "next_marker_value_1")
        let empty = try page("PagingIterator/MarkerBasedPagingWithEmptyNext.json")
        XCTAssertTrue(empty.isMarkerPaged)
        XCTAssertEqual(empty.nextMarker, "")
        XCTAssertEqual(empty.entries.map(\.item.name), ["Private Docs", "Reports"])
        let null = try page("PagingIterator/MarkerBasedPagingWithNullNext.json")
        XCTAssertTrue(null.isMarkerPaged)
        XCTAssertNil(null.nextMarker)
        XCTAssertEqual(null.entries.map(\.item.id), ["2158347334", "45189173912"])
    }

    func testOffsetPagingIterator() throws {
        let more = try page("PagingIterator/OffsetBasedPagingWithMoreItems.json")
        XCTAssertEqual(more.totalCount, 4)
        XCTAssertEqual(more.entries.map(\.item.kind), [.folder, .webLink])
        let last = try page("PagingIterator/OffsetBasedPagingWithoutMoreItems.json")
        XCTAssertEqual(last.offset, 2)
        XCTAssertEqual(last.entries.map(\.item.id), ["3", "4"])
    }

    func testUsers() throws {
        let me = try BoxJSON.decode(UserDTO.self, from: RecordedFixtures.data("Users/GetCurrentUserInfo.json")).user
        XCTAssertEqual(
            me,
            BoxUser(
                id: "17738362", name: "Test User", login: "testuser@example.com", spaceAmount: 5_368_709_120,
                spaceUsed: 2_377_016, maxUploadSize: 262_144_000))
        let full = try BoxJSON.decode(UserDTO.self, from: RecordedFixtures.data("Users/FullUser.json")).user
        XCTAssertEqual(full.spaceAmount, 1_000_000_000_000_000)
        XCTAssertEqual(full.spaceUsed, 18_236_190_421)
        XCTAssertEqual(full.maxUploadSize, 34_359_738_368)
        let other = try BoxJSON.decode(UserDTO.self, from: RecordedFixtures.data("Users/GetUserInfo.json")).user
        XCTAssertEqual(other.id, "11111")
        XCTAssertEqual(other.spaceAmount, 10_737_418_240)
    }

    /// Every recorded file/folder object that names itself decodes; nothing crashes on the rest.
    func testEveryRecordedItemDecodes() throws {
        var decoded = 0
        for name in try RecordedFixtures.names(in: "Files") + RecordedFixtures.names(in: "Folders") {
            let data = try RecordedFixtures.data(name)
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
            let isItem = ["file", "folder"].contains(object["type"] as? String ?? "") && object["name"] != nil
            if isItem {
                XCTAssertNoThrow(try BoxJSON.decode(ItemDTO.self, from: data), name)
                decoded += 1
            } else {
                _ = try? BoxJSON.decode(ItemDTO.self, from: data)  // must fail cleanly, not crash
            }
        }
        XCTAssertGreaterThanOrEqual(decoded, 9)
    }
}
