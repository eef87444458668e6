import BoxTestSupport
import Foundation
import XCTest

/// Box's recorded answers (`Tests/Fixtures/box-api/recorded/`) against boxsim's answers to the same requests, by JSON
/// shape: key sets and value kinds, recursively, array elements by their shape (grouped by `type`). Differences
/// must be fixed in boxsim or explained in `RecordedShapeAllowList`.
final class RecordedShapeTests: XCTestCase {
    static let itemRecordings = [
        "Folders/CreateFolder.json", "Files/UploadFile.json", "Files/UploadFileVersion.json", "Files/GetFileInfo.json",
        "Files/GetFileSharedLink_PasswordNotEnabled.json", "Files/SharedLinkPermissions.json",
        "Files/GetFileSharedLink.json", "Files/UpdateFileInfo.json", "Files/CopyFile.json", "Files/FullFile.json",
        "Files/GetFileSharedLink_VanityNameEnabled.json", "Files/RemoveFileSharedLink.json",
        "Folders/GetFolderInfo.json", "Folders/GetFolderSharedLink_PasswordNotEnabled.json",
        "Folders/GetFolderSharedLink.json", "Folders/UpdateFolder.json", "Folders/CopyFolder.json",
        "Folders/FullFolder.json", "Folders/GetFolderSharedLink_VanityNameEnabled.json",
        "Folders/RemoveFolderSharedLink.json",
    ]
    static let listingRecordings = [
        "Folders/GetFolderItems.json", "Folders/GetFolderItemsOffsetIterator1.json",
        "PagingIterator/OffsetBasedPagingWithMoreItems.json", "Folders/GetFolderItemsOffsetIterator2.json",
        "PagingIterator/OffsetBasedPagingWithoutMoreItems.json", "Folders/GetFolderItemsMarkerIterator1.json",
        "PagingIterator/MarkerBasedPagingWithValidNext.json", "Folders/GetFolderItemsMarkerIterator2.json",
        "PagingIterator/MarkerBasedPagingWithNullNext.json", "PagingIterator/MarkerBasedPagingWithEmptyNext.json",
    ]
    static let otherRecordings = [
        "Events/GetUserEvents.json", "Events/GetPollingURL.json", "Events/GetNewEvents.json",
        "Users/GetCurrentUserInfo.json", "Users/FullUser.json", "Sessions/AccessToken.json",
        "Sessions/TokenRefresh.json", "Sessions/DownscopeToken.json", "Files/ChunkedUploadSessionNewFile.json",
        "Files/ChunkedUploadSessionUploadPart.json", "Files/ChunkedUploadSessionGetSession.json",
        "Files/ChunkedUploadSessionListParts.json", "Files/ChunkedUploadSessionCommit.json",
        "Files/ChunkedUploadSessionNewFileVersion.json",
    ]

    func testEveryRecordingIsComparedOrSkippedWithAReason() throws {
        let recordings = try ShapeComparison.allRecordings()
        XCTAssertGreaterThan(recordings.count, 40, "recordings at \(ShapeComparison.recordedDirectory.path)")
        let classified = Self.itemRecordings + Self.listingRecordings + Self.otherRecordings
            + FileLockTests.recordings + Array(RecordedShapeAllowList.notCompared.keys)
        XCTAssertEqual(classified.count, Set(classified).count, "each recording is classified once")
        XCTAssertEqual(Set(recordings).subtracting(classified).sorted(), [], "recordings neither compared nor skipped")
        XCTAssertEqual(Set(classified).subtracting(recordings).sorted(), [], "classified names that do not exist")
    }

    /// The comparer itself: kinds, missing and extra members, element groups, and `null` as its own kind.
    func testShapeComparisonReportsEachKindOfDifference() throws {
        let box = try JSONValueNode.parse(Data(#"{"a":1,"b":{"c":"x"},"l":[{"type":"file","id":"1"},{"type":"web_link"}],"n":null,"o":[]}"#.utf8))
        let sim = try JSONValueNode.parse(Data(#"{"a":"1","b":{"d":true},"l":[{"type":"file","id":2}],"n":{},"o":[1],"e":0}"#.utf8))
        let found = JSONShape(sim).differences(from: JSONShape(box)).map(\.description)
        XCTAssertEqual(found, [
            #"a: type differs (Box ["number"] vs boxsim ["string"])"#, "b.c: missing in boxsim", "b.d: extra in boxsim",
            #"l[file].id: type differs (Box ["string"] vs boxsim ["number"])"#,
            "l[web_link]: missing in boxsim (no such elements)",
            #"n: type differs (Box ["null"] vs boxsim ["object"])"#, "e: extra in boxsim",
        ])
        XCTAssertEqual(JSONShape(box).differences(from: JSONShape(box)), [])
    }

    func testFileAndFolderAnswersHaveTheRecordedShapes() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let shapes = ShapeComparison()
        let created = try fixture.postJSON("/2.0/folders", ["name": "Pictures", "parent": ["id": "0"]], token: token(fixture))
        try shapes.compare("Folders/CreateFolder.json", created, status: 201)
        let pictures = try Self.id(created)
        // Box's copies land in a folder below the root (their parent has an etag).
        let copies = try Self.id(try fixture.postJSON("/2.0/folders", ["name": "Copies", "parent": ["id": "0"]],
                                                      token: token(fixture)))
        _ = try put(fixture, "/2.0/folders/\(pictures)", ["description": "Some pictures I took"])
        _ = try fixture.postJSON("/2.0/folders", ["name": "Test Folder", "parent": ["id": pictures]], token: token(fixture))
        let local = try UploadFiles.random(size: 4096)
        defer { try? FileManager.default.removeItem(at: local) }
        let uploaded = try fixture.upload(attributes: ["name": "testfile.jpeg", "parent": ["id": pictures],
                                                       "content_created_at": "2013-02-04T16:57:52-08:00"], file: local)
        try shapes.compare("Files/UploadFile.json", uploaded, status: 201)
        let fileID = try XCTUnwrap((try uploaded.json()["entries"] as? [[String: Any]])?.first?["id"] as? String)
        let file = "/2.0/files/\(fileID)"
        _ = try put(fixture, file, ["shared_link": ["access": "open"]])
        try shapes.compare("Files/UploadFileVersion.json",
                           try fixture.upload(path: "/api\(file)/content", attributes: [:], file: local), status: 200)
        try shapes.compare("Files/GetFileInfo.json", try fixture.get(file), status: 200)
        try shapes.compare("Files/GetFileSharedLink_PasswordNotEnabled.json", try fixture.get(file + "?fields=shared_link"),
                           status: 200)
        try shapes.compare("Files/SharedLinkPermissions.json", try fixture.get(file + "?fields=shared_link"), status: 200,
                           path: "shared_link.permissions")
        _ = try put(fixture, file, ["shared_link": ["access": "open", "password": "Secret123",
                                                    "permissions": ["can_edit": true]]])
        try shapes.compare("Files/GetFileSharedLink.json", try fixture.get(file + "?fields=shared_link"), status: 200)
        try shapes.compare("Files/UpdateFileInfo.json", try put(fixture, file, ["name": "testfile.jpg"]), status: 200)
        try shapes.compare("Files/CopyFile.json", try fixture.postJSON(file + "/copy", ["parent": ["id": copies]],
                                                                        token: token(fixture)), status: 201)
        try shapes.compare("Files/FullFile.json", try fixture.get(file + "?fields=" + Self.keys("Files/FullFile.json")),
                           status: 200)
        _ = try put(fixture, file, ["shared_link": ["access": "open", "password": NSNull(), "vanity_name": "testVanityName"]])
        try shapes.compare("Files/GetFileSharedLink_VanityNameEnabled.json",
                           try fixture.get(file + "?fields=shared_link"), status: 200)
        try shapes.compare("Files/RemoveFileSharedLink.json",
                           try put(fixture, file + "?fields=shared_link", ["shared_link": NSNull()]), status: 200)

        let folder = "/2.0/folders/\(pictures)"
        _ = try put(fixture, folder, ["shared_link": ["access": "open"]])
        try shapes.compare("Folders/GetFolderInfo.json", try fixture.get(folder), status: 200)
        try shapes.compare("Folders/GetFolderSharedLink_PasswordNotEnabled.json",
                           try fixture.get(folder + "?fields=shared_link"), status: 200)
        _ = try put(fixture, folder, ["shared_link": ["access": "open", "password": "Secret123"]])
        try shapes.compare("Folders/GetFolderSharedLink.json", try fixture.get(folder + "?fields=shared_link"), status: 200)
        try shapes.compare("Folders/UpdateFolder.json", try put(fixture, folder, ["name": "New Folder Name!"]), status: 200)
        try shapes.compare("Folders/CopyFolder.json",
                           try fixture.postJSON(folder + "/copy", ["parent": ["id": copies], "name": "Pictures copy"],
                                                token: token(fixture)), status: 201)
        try shapes.compare("Folders/FullFolder.json",
                           try fixture.get(folder + "?fields=" + Self.keys("Folders/FullFolder.json")), status: 200)
        _ = try put(fixture, folder, ["shared_link": ["access": "open", "password": NSNull(), "vanity_name": "testVanity2"]])
        try shapes.compare("Folders/GetFolderSharedLink_VanityNameEnabled.json",
                           try fixture.get(folder + "?fields=shared_link"), status: 200)
        try shapes.compare("Folders/RemoveFolderSharedLink.json",
                           try put(fixture, folder + "?fields=shared_link", ["shared_link": NSNull()]), status: 200)
        XCTAssertEqual(shapes.compared, Self.itemRecordings)
        shapes.assertClean()
    }

    /// Listings: `Pictures` holds a folder and a file; `many` (seeded) three folders and twelve files.
    func testFolderListingsHaveTheRecordedShapes() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let shapes = ShapeComparison()
        let created = try fixture.postJSON("/2.0/folders", ["name": "Pictures", "parent": ["id": "0"]], token: token(fixture))
        let pictures = try Self.id(created)
        _ = try fixture.postJSON("/2.0/folders", ["name": "Test Folder", "parent": ["id": pictures]], token: token(fixture))
        let local = try UploadFiles.random(size: 100)
        defer { try? FileManager.default.removeItem(at: local) }
        _ = try fixture.upload(attributes: ["name": "test.jpeg", "parent": ["id": pictures]], file: local)
        let many = try fixture.id(of: "many")

        let folderAndFile = try fixture.get("/2.0/folders/\(pictures)/items?limit=2")
        for recording in ["Folders/GetFolderItems.json", "Folders/GetFolderItemsOffsetIterator1.json",
                          "PagingIterator/OffsetBasedPagingWithMoreItems.json"] {
            try shapes.compare(recording, folderAndFile, status: 200)
        }
        let secondPage = try fixture.get("/2.0/folders/\(many)/items?limit=2&offset=2")
        try shapes.compare("Folders/GetFolderItemsOffsetIterator2.json", secondPage, status: 200)
        try shapes.compare("PagingIterator/OffsetBasedPagingWithoutMoreItems.json", secondPage, status: 200)
        let firstMarkerPage = try fixture.get("/2.0/folders/\(many)/items?usemarker=true&limit=2")
        try shapes.compare("Folders/GetFolderItemsMarkerIterator1.json", firstMarkerPage, status: 200)
        try shapes.compare("PagingIterator/MarkerBasedPagingWithValidNext.json", firstMarkerPage, status: 200)
        let marker = try XCTUnwrap(try firstMarkerPage.json()["next_marker"] as? String)
        try shapes.compare("Folders/GetFolderItemsMarkerIterator2.json",
                           try fixture.get("/2.0/folders/\(many)/items?usemarker=true&limit=2&marker=\(marker)"), status: 200)
        let lastMarkerPage = try fixture.get("/2.0/folders/\(pictures)/items?usemarker=true&limit=2")
        try shapes.compare("PagingIterator/MarkerBasedPagingWithNullNext.json", lastMarkerPage, status: 200)
        try shapes.compare("PagingIterator/MarkerBasedPagingWithEmptyNext.json", lastMarkerPage, status: 200)
        XCTAssertEqual(shapes.compared, Self.listingRecordings)
        shapes.assertClean()
    }

    static func id(_ result: CurlResult) throws -> String {
        try XCTUnwrap(try result.json()["id"] as? String, result.text)
    }

    /// The top-level keys of a recording, as a `fields=` list.
    static func keys(_ recording: String) throws -> String {
        let data = try Data(contentsOf: ShapeComparison.recordedDirectory.appendingPathComponent(recording))
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return object.keys.sorted().joined(separator: ",")
    }

    func token(_ fixture: SimFixture) -> String { fixture.sim.developerToken }

    func put(_ fixture: SimFixture, _ path: String, _ body: [String: Any]) throws -> CurlResult {
        let result = try fixture.postJSON(path, body, token: token(fixture), method: "PUT")
        XCTAssertEqual(result.status, 200, "PUT \(path): \(result.text.prefix(300))")
        return result
    }
}
