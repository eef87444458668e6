import BoxTestSupport
import Foundation
import XCTest

/// `GET /2.0/folders/{id}/items`: offset and marker paging, limit clamp, `fields`.
final class FolderItemsPagingTests: XCTestCase {
    /// Folders first (case-insensitive by name), then files.
    let expectedOrder = ["DirA", "dirB", "dirC"] + SimFixture.manyFiles

    private func names(_ page: [String: Any]) -> [String] {
        (page["entries"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    }

    func testOffsetPagingWalksAllItemsInOrder() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let folder = try fixture.id(of: "many")
        var collected: [String] = []
        var offset = 0
        while true {
            let page = try fixture.getJSON("/2.0/folders/\(folder)/items?limit=4&offset=\(offset)")
            XCTAssertEqual(page["total_count"] as? Int, expectedOrder.count)
            XCTAssertEqual(page["offset"] as? Int, offset)
            XCTAssertEqual(page["limit"] as? Int, 4)
            XCTAssertNotNil(page["order"] as? [[String: Any]])
            let pageNames = names(page)
            if pageNames.isEmpty { break }
            collected += pageNames
            offset += 4
        }
        XCTAssertEqual(collected, expectedOrder)
    }

    func testMarkerPagingEndsWithNullNextMarker() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let folder = try fixture.id(of: "many")
        var collected: [String] = []
        var marker: String?
        var pages = 0
        repeat {
            let query = "usemarker=true&limit=5" + (marker.map { "&marker=\($0)" } ?? "")
            let page = try fixture.getJSON("/2.0/folders/\(folder)/items?\(query)")
            XCTAssertNil(page["total_count"], "marker pages carry no total_count")
            XCTAssertNil(page["offset"])
            XCTAssertEqual(page["limit"] as? Int, 5)
            XCTAssertNotNil(page["next_marker"], "next_marker is always present (null at the end)")
            collected += names(page)
            marker = page["next_marker"] as? String
            pages += 1
        } while marker != nil && pages < 10
        XCTAssertEqual(pages, 3)
        XCTAssertEqual(collected, expectedOrder)

        let bad = try fixture.get("/2.0/folders/\(folder)/items?usemarker=true&marker=%21%21%21")
        XCTAssertEqual(bad.status, 400)
    }

    func testLimitIsClampedAndDefaultsTo100() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let clamped = try fixture.getJSON("/2.0/folders/0/items?limit=5000")
        XCTAssertEqual(clamped["limit"] as? Int, 1000)
        let defaulted = try fixture.getJSON("/2.0/folders/0/items")
        XCTAssertEqual(defaulted["limit"] as? Int, 100)
        XCTAssertEqual(try fixture.get("/2.0/folders/0/items?limit=abc").status, 400)
        XCTAssertEqual(try fixture.get("/2.0/folders/0/items?offset=-1").status, 400)
    }

    func testFieldsGiveBaseSetPlusRequested() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let page = try fixture.getJSON("/2.0/folders/0/items?fields=name,size,content_modified_at,sha1")
        let entries = try XCTUnwrap(page["entries"] as? [[String: Any]])
        let folder = try XCTUnwrap(entries.first { $0["type"] as? String == "folder" })
        let file = try XCTUnwrap(entries.first { $0["name"] as? String == "hello.txt" })
        XCTAssertEqual(Set(folder.keys), ["type", "id", "etag", "name", "size", "content_modified_at"])
        XCTAssertEqual(Set(file.keys), ["type", "id", "etag", "name", "size", "content_modified_at", "sha1"])
        XCTAssertEqual((file["size"] as? NSNumber)?.intValue, 12)

        let mini = try fixture.getJSON("/2.0/folders/0/items")
        let miniFile = try XCTUnwrap((mini["entries"] as? [[String: Any]])?.first { $0["name"] as? String == "hello.txt" })
        XCTAssertEqual(Set(miniFile.keys), ["type", "id", "file_version", "sequence_id", "etag", "sha1", "name"])
    }
}
