import BoxTestSupport
import CurlHTTP
import Foundation
import XCTest

@testable import BoxAPI

/// Versions, trash and search against a real boxsim process: what the client decodes, and what it sent.
final class ReadEndpointClientTests: BoxSimClientTestCase {
    func testVersionsListTheEarlierVersionsWhoseContentIsPinnedByID() async throws {
        let (sim, client) = try await start(seed: try SeedTree.make(texts: ["notes.txt": "first save\n"]))
        let api = BoxSimAPI(sim)
        let file = try await client.item(atPath: "/notes.txt")
        try api.uploadVersion(of: file.id, data: Data("second save, longer\n".utf8))
        try api.uploadVersion(of: file.id, data: Data("third\n".utf8))

        // Box documents no order (boxsim: newest first); both were saved within a second: by Box's number.
        let versions = try await client.fileVersions(fileID: file.id).sorted {
            Int($0.versionNumber ?? "") ?? 0 < Int($1.versionNumber ?? "") ?? 0
        }
        XCTAssertEqual(versions.count, 2, "the current version is not an earlier one")
        XCTAssertEqual(versions.map(\.size), [11, 20])
        let me = try await client.currentUser()
        for version in versions {
            XCTAssertNotNil(version.createdAt)
            XCTAssertNotNil(version.modifiedAt)
            XCTAssertNil(version.trashedAt)
            XCTAssertEqual(version.modifiedBy?.id, me.id)
            XCTAssertEqual(version.modifiedBy?.login, me.login)
            XCTAssertEqual(version.name, "notes.txt")
            XCTAssertEqual(version.sha1?.count, 40)
        }
        XCTAssertEqual(versions.compactMap(\.versionNumber), ["1", "2"])
        let first = try await client.download(fileID: file.id, range: nil, version: versions[0].id)
        let second = try await client.download(fileID: file.id, range: 7..<11, version: versions[1].id)
        let current = try await client.download(fileID: file.id, range: nil)
        XCTAssertEqual(String(decoding: first, as: UTF8.self), "first save\n")
        XCTAssertEqual(String(decoding: second, as: UTF8.self), "save")
        XCTAssertEqual(String(decoding: current, as: UTF8.self), "third\n")
        let one = try await client.fileVersion(fileID: file.id, versionID: versions[1].id)
        XCTAssertEqual(one, versions[1])

        let listing = try await logged(sim, atLeast: 1) { $0.path == "/2.0/files/\(file.id)/versions" }
        XCTAssertEqual(listing.count, 1, "one page")
        let query = listing.first?.query ?? ""
        XCTAssertTrue(query.contains("fields=") && query.contains("modified_by") && query.contains("limit=1000"), query)
        let pinned = try await logged(sim, atLeast: 2) { $0.path == "/2.0/files/\(file.id)/content" }
        XCTAssertEqual(pinned.compactMap(\.query).filter { $0.hasPrefix("version=") }.count, 2)
    }

    func testTrashListsWhatWasDeletedWithWhereItWas() async throws {
        let (sim, client) = try await start(seed: try SeedTree.make(texts: ["keep.txt": "k", "old/gone.txt": "bye", "old/sub/deep.txt": "d"]))
        let api = BoxSimAPI(sim)
        let gone = try await client.item(atPath: "/old/gone.txt")
        let old = try await client.item(atPath: "/old")
        let deep = try await client.item(atPath: "/old/sub/deep.txt")
        try api.deleteFile(gone.id)
        try api.call("DELETE", "/2.0/folders/\(old.id)?recursive=true")

        let trash = try await client.trashItems()
        XCTAssertEqual(Set(trash.map(\.item.id)), [gone.id, old.id], "only what was trashed directly")
        let file = try XCTUnwrap(trash.first { $0.item.id == gone.id })
        XCTAssertEqual(file.item.kind, .file)
        XCTAssertEqual(file.item.name, "gone.txt")
        XCTAssertEqual(file.item.size, 3)
        XCTAssertEqual(file.item.parentID, old.id, "where it was: the folder, itself trashed since")
        XCTAssertEqual(file.itemStatus, "trashed")
        XCTAssertNotNil(file.trashedAt)
        XCTAssertEqual(file.pathCollection.map(\.name), ["Trash"], "Box shows a trashed item's path as its Trash")
        let folder = try XCTUnwrap(trash.first { $0.item.id == old.id })
        XCTAssertEqual(folder.item.kind, .folder)
        XCTAssertEqual(folder.item.parentID, "0")

        let shown = try await client.trashedItem(id: old.id, kind: .folder)
        XCTAssertEqual(shown.item.name, "old")
        XCTAssertEqual(shown.itemStatus, "trashed")
        do {
            _ = try await client.trashedItem(id: deep.id, kind: .file)
            XCTFail("an item that went with its folder is not found on its own")
        } catch let error as BoxAPIError {
            XCTAssertEqual(error.status, 404)
        }
        do {
            _ = try await client.download(fileID: gone.id, range: nil)
            XCTFail("a trashed file's content is not served")
        } catch let error as BoxAPIError {
            XCTAssertTrue(error.isTrashed, "\(error)")
        }
        let listing = try await logged(sim, atLeast: 1) { $0.path == "/2.0/folders/trash/items" }
        let query = listing.first?.query ?? ""
        XCTAssertTrue(query.contains("usemarker=true") && query.contains("path_collection"), query)
    }

    func testSearchFindsByContentAndByNameWithinAFolder() async throws {
        let (sim, client) = try await start(seed: try SeedTree.make(texts: [
            "docs/report.txt": "the quarterly zebra count\n",
            "docs/deeper/zebra-notes.md": "nothing to see\n",
            "elsewhere/zebra.txt": "also here\n",
            "docs/unrelated.txt": "horses only\n",
        ]))
        let docs = try await client.item(atPath: "/docs")

        let everywhere = try await client.search(BoxSearchQuery("zebra"))
        XCTAssertEqual(Set(everywhere.map(\.item.name)), ["report.txt", "zebra-notes.md", "zebra.txt"])
        let scoped = try await client.search(BoxSearchQuery("zebra", ancestorFolderIDs: [docs.id]))
        XCTAssertEqual(Set(scoped.map(\.item.name)), ["report.txt", "zebra-notes.md"])
        let notes = try XCTUnwrap(scoped.first { $0.item.name == "zebra-notes.md" })
        XCTAssertEqual(notes.pathCollection.map(\.name), ["All Files", "docs", "deeper"])
        XCTAssertEqual(notes.pathCollection.first?.id, "0")
        XCTAssertEqual(notes.item.size, 15)
        XCTAssertNotNil(notes.item.fileVersionID)
        let markdown = try await client.search(BoxSearchQuery("zebra", fileExtensions: [".md"], type: .file))
        XCTAssertEqual(markdown.map(\.item.name), ["zebra-notes.md"])
        let byName = try await client.search(BoxSearchQuery("zebra", contentTypes: [.name]))
        XCTAssertEqual(Set(byName.map(\.item.name)), ["zebra-notes.md", "zebra.txt"])
        let capped = try await client.search(BoxSearchQuery("zebra"), maxResults: 2)
        XCTAssertEqual(capped.count, 2)

        let calls = try await logged(sim, atLeast: 5) { $0.path == "/2.0/search" }
        let queries = calls.compactMap(\.query)
        XCTAssertTrue(queries.contains { $0.contains("ancestor_folder_ids=\(docs.id)") }, "\(queries)")
        XCTAssertTrue(queries.contains { $0.contains("file_extensions=md") && $0.contains("type=file") }, "\(queries)")
        XCTAssertTrue(queries.contains { $0.contains("content_types=name") }, "\(queries)")
        XCTAssertTrue(queries.contains { $0.contains("limit=2") }, "\(queries)")
        XCTAssertTrue(queries.allSatisfy { $0.contains("path_collection") }, "\(queries)")
    }

    func testSearchPagesByOffsetUpToTheLimit() async throws {
        let http = ScriptedHTTP { request, _ in
            let query = ListingBehaviourTests.query(of: request.url)
            let limit = Int(query["limit"] ?? "") ?? 30
            let start = Int(query["offset"] ?? "") ?? 0
            let end = min(450, start + limit)
            let entries = (start..<end).map { #"{"type":"file","id":"\#($0 + 1)","name":"f\#($0)"}"# }
            return ScriptedHTTP.response(200, json: #"{"total_count":450,"offset":\#(start),"limit":\#(limit),"#
                + #""type":"search_results_items","entries":[\#(entries.joined(separator: ","))]}"#)
        }
        let all = try await BoxClient.scripted(http).search(BoxSearchQuery("f"))
        XCTAssertEqual(all.map(\.item.name), (0..<450).map { "f\($0)" })
        XCTAssertEqual(http.requests.map { ListingBehaviourTests.query(of: $0.url)["offset"] }, [nil, "200", "400"])
        let few = try await BoxClient.scripted(http).search(BoxSearchQuery("f"), maxResults: 250)
        XCTAssertEqual(few.count, 250)
    }
}

extension ReadEndpointClientTests {
    func testAnItemWithItsPath() async throws {
        let (_, client) = try await start(seed: try SeedTree.make(texts: ["a/b/c.txt": "c"]))
        let folder = try await client.item(atPath: "/a/b")
        let found = try await client.itemWithPath(id: folder.id, kind: .folder)
        XCTAssertEqual(found.item.name, "b")
        XCTAssertEqual(found.pathCollection.map(\.name), ["All Files", "a"])
        XCTAssertEqual(found.itemStatus, "active")
        XCTAssertNil(found.trashedAt)
    }
}
