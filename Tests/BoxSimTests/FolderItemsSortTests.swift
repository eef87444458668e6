import BoxTestSupport
import Foundation
import XCTest

/// `sort`/`direction` on `GET /2.0/folders/{id}/items` (offset paging): always folders first, then files; the
/// sort key and direction order each group.
final class FolderItemsSortTests: XCTestCase {
    private func names(_ page: [String: Any]) -> [String] {
        (page["entries"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    }

    private func ids(_ page: [String: Any]) -> [String] {
        (page["entries"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }

    func testSortKeysAndDirectionOrderEachTypeGroup() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let token = fixture.sim.developerToken
        let folder = try RecordedShapeTests.id(try fixture.postJSON("/2.0/folders", ["name": "sorting",
                                                                                       "parent": ["id": "0"]], token: token))
        // Folders "small" (1 byte inside) and "Big" (3000 bytes inside); files "b" (2000 bytes) and "a" (10 bytes).
        var folderIDs: [String: String] = [:]
        for (name, size) in [("small", 1), ("Big", 3000)] {
            let id = try RecordedShapeTests.id(try fixture.postJSON("/2.0/folders", ["name": name, "parent": ["id": folder]],
                                                                     token: token))
            folderIDs[name] = id
            try upload(fixture, name: "inner", size: size, parent: id)
        }
        try upload(fixture, name: "b", size: 2000, parent: folder)
        try upload(fixture, name: "a", size: 10, parent: folder)
        let items = "/2.0/folders/\(folder)/items"

        XCTAssertEqual(names(try fixture.getJSON(items)), ["Big", "small", "a", "b"], "default: by name, ascending")
        let descending = try fixture.getJSON(items + "?sort=name&direction=DESC")
        XCTAssertEqual(names(descending), ["small", "Big", "b", "a"], "type first, then the key in its direction")
        XCTAssertEqual((descending["order"] as? [[String: String]]) ?? [],
                       [["by": "type", "direction": "ASC"], ["by": "name", "direction": "DESC"]])
        XCTAssertEqual(names(try fixture.getJSON(items + "?direction=desc")), ["small", "Big", "b", "a"])
        XCTAssertEqual(names(try fixture.getJSON(items + "?sort=size")), ["small", "Big", "a", "b"],
                       "a folder's size is what it holds")
        XCTAssertEqual(names(try fixture.getJSON(items + "?sort=size&direction=DESC")), ["Big", "small", "b", "a"])
        let byID = try fixture.getJSON(items + "?sort=id&direction=DESC")
        XCTAssertEqual(Array(ids(byID).prefix(2)), [folderIDs["small"]!, folderIDs["Big"]!].sorted { Int($0)! > Int($1)! })
        let paged = try fixture.getJSON(items + "?sort=size&direction=DESC&limit=2&offset=1")
        XCTAssertEqual(names(paged), ["small", "b"], "offset paging walks the sorted order")
        XCTAssertEqual(paged["total_count"] as? Int, 4)

        // date: modified_at (second precision), so wait a second before touching "a".
        try await Task.sleep(nanoseconds: 1_100_000_000)
        XCTAssertEqual(try fixture.postJSON("/2.0/files/\(try fixture.id(of: "sorting/a"))", ["description": "newer"],
                                            token: token, method: "PUT").status, 200)
        XCTAssertEqual(Array(names(try fixture.getJSON(items + "?sort=date")).suffix(2)), ["b", "a"])
        XCTAssertEqual(Array(names(try fixture.getJSON(items + "?sort=date&direction=DESC")).suffix(2)), ["a", "b"])

        XCTAssertEqual(try fixture.get(items + "?sort=colour").status, 400)
        XCTAssertEqual(try fixture.get(items + "?direction=sideways").status, 400)
    }

    private func upload(_ fixture: SimFixture, name: String, size: Int, parent: String) throws {
        let local = try UploadFiles.random(size: size)
        defer { try? FileManager.default.removeItem(at: local) }
        XCTAssertEqual(try fixture.upload(attributes: ["name": name, "parent": ["id": parent]], file: local).status, 201)
    }
}
