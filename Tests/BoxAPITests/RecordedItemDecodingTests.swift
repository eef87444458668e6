import Foundation
import XCTest

@testable import BoxAPI

/// Files and folders from Box's recorded real responses decode to the right values.
final class RecordedItemDecodingTests: XCTestCase {
    private func item(_ name: String) throws -> BoxItem {
        try BoxJSON.decode(ItemDTO.self, from: RecordedFixtures.data(name)).item
    }

    func testGetFileInfo() throws {
        let file = try item("Files/GetFileInfo.json")
        XCTAssertEqual(file.id, "5000948880")
        XCTAssertEqual(file.kind, .file)
        XCTAssertEqual(file.name, "testfile.jpeg")
        XCTAssertEqual(file.size, 629_644)
        XCTAssertEqual(file.sha1, "134b65991ed521fcfe4724b7d814ab8ded5185dc")
        XCTAssertEqual(file.fileVersionID, "26261748416")
        XCTAssertEqual(file.etag, "3")
        XCTAssertEqual(file.sequenceID, "3")
        XCTAssertEqual(file.parentID, "11446498")
        XCTAssertEqual(file.createdAt, referenceDate("2012-12-12T10:55:30-08:00"))
        XCTAssertEqual(file.createdAt?.timeIntervalSince1970, 1_355_338_530)
        XCTAssertEqual(file.modifiedAt, referenceDate("2012-12-12T11:04:26-08:00"))
        XCTAssertNil(file.contentModifiedAt, "GetFileInfo.json has no content_modified_at")
    }

    func testFullFile() throws {
        let file = try item("Files/FullFile.json")
        XCTAssertEqual(file.id, "11111")
        XCTAssertEqual(file.kind, .file)
        XCTAssertEqual(file.name, "script.js")
        XCTAssertEqual(file.size, 33_510)
        XCTAssertEqual(file.etag, "2")
        XCTAssertEqual(file.sequenceID, "2")
        XCTAssertEqual(file.sha1, "14acc506f2021b2f1a9d81097ca82e14887b34fe")
        XCTAssertEqual(file.fileVersionID, "44444")
        XCTAssertEqual(file.parentID, "22222")
        XCTAssertEqual(file.contentCreatedAt, referenceDate("2017-10-09T15:09:01-07:00"))
        XCTAssertEqual(file.contentModifiedAt?.timeIntervalSince1970, 1_507_586_941)
        XCTAssertEqual(file.modifiedAt, referenceDate("2018-02-27T10:57:14-08:00"))
    }

    /// Owner, last modifier and shared link (the `user.box.*` attributes) from Box's own responses.
    func testOwnerModifierAndSharedLink() throws {
        let file = try item("Files/FullFile.json")
        XCTAssertEqual(file.ownerLogin, "user@example.com")
        XCTAssertEqual(file.modifiedByLogin, "user@example.com")
        XCTAssertEqual(file.sharedLinkURL, "https://app.box.com/s/vc35nxi6vid83lf8lh5xabtrwmiqiy7a")
        let unshared = try BoxJSON.decode(ItemPageDTO.self, from: RecordedFixtures.data("Files/UploadFile.json")).entries[0].item
        XCTAssertEqual(unshared.ownerLogin, "testuser@example.com")
        XCTAssertNil(unshared.sharedLinkURL, "\"shared_link\": null is no link")
        XCTAssertEqual(try item("Folders/FullFolder.json").sharedLinkURL, "https://app.box.com/s/ago2k14xz23vwcgnhk1u")
    }

    /// Box names the root folder's creator and modifier with empty strings: no user, not a broken response.
    func testTheRootFoldersEmptyUsersAreNoUsers() throws {
        let json = """
            {"type": "folder", "id": "0", "name": "All Files",
             "owned_by": {"type": "user", "id": "42", "name": "Ann", "login": "ann@example.com"},
             "modified_by": {"type": "user", "id": "", "name": "", "login": ""}, "shared_link": null}
            """
        let root = try BoxJSON.decode(ItemDTO.self, from: Data(json.utf8)).item
        XCTAssertEqual(root.ownerLogin, "ann@example.com")
        XCTAssertNil(root.modifiedByLogin)
        XCTAssertNil(root.sharedLinkURL)
    }

    func testBrokenFilesAreRejectedWithClearErrors() throws {
        XCTAssertThrowsError(try item("Files/FullFile_MissingRequiredField.json")) { error in
            guard let error = error as? BoxAPIError, case .decoding(let detail) = error.kind else {
                return XCTFail("expected a decoding BoxAPIError, got \(error)")
            }
            XCTAssertTrue(detail.contains("type"), detail)
            XCTAssertTrue(detail.contains("missing"), detail)
            XCTAssertTrue(error.description.contains("type: required field is missing"), error.description)
        }
        XCTAssertThrowsError(try item("Files/FullFile_ValueFormatMismatch.json")) { error in
            guard let error = error as? BoxAPIError, case .decoding(let detail) = error.kind else {
                return XCTFail("expected a decoding BoxAPIError, got \(error)")
            }
            XCTAssertTrue(detail.contains("unknown item type \"unknown_type\""), detail)
        }
    }

    func testGetFolderInfo() throws {
        let folder = try item("Folders/GetFolderInfo.json")
        XCTAssertEqual(folder.id, "11111")
        XCTAssertEqual(folder.kind, .folder)
        XCTAssertEqual(folder.name, "Pictures")
        XCTAssertEqual(folder.size, 629_644)
        XCTAssertEqual(folder.parentID, "0")
        XCTAssertNil(folder.sha1)
        XCTAssertNil(folder.fileVersionID)
        XCTAssertEqual(folder.createdAt, referenceDate("2012-12-12T10:53:43-08:00"))
    }

    func testFullFolder() throws {
        let folder = try item("Folders/FullFolder.json")
        XCTAssertEqual(folder.name, "Test Folder")
        XCTAssertEqual(folder.size, 814_688_861)
        XCTAssertEqual(folder.contentCreatedAt?.timeIntervalSince1970, 1_370_127_120)
        XCTAssertEqual(folder.contentModifiedAt?.timeIntervalSince1970, 1_559_070_766)
    }

    func testOtherItemResponses() throws {
        let expectations: [(String, String, String, BoxItem.Kind, String?)] = [
            ("Files/CopyFile.json", "5000948880", "testfile.jpeg", .file, "11446498"),
            ("Files/UpdateFileInfo.json", "5000948880", "testfile.jpg", .file, "11446498"),
            ("Folders/CreateFolder.json", "11111", "Pictures", .folder, "0"),
            ("Folders/CopyFolder.json", "11111", "Pictures copy", .folder, "123456"),
            ("Folders/UpdateFolder.json", "11111", "New Folder Name!", .folder, "0"),
        ]
        for (name, id, itemName, kind, parent) in expectations {
            let decoded = try item(name)
            XCTAssertEqual(decoded.id, id, name)
            XCTAssertEqual(decoded.name, itemName, name)
            XCTAssertEqual(decoded.kind, kind, name)
            XCTAssertEqual(decoded.parentID, parent, name)
        }
    }

    /// Item collections (uploads, chunked commit) decode through the page DTO.
    func testItemCollections() throws {
        let upload = try BoxJSON.decode(ItemPageDTO.self, from: RecordedFixtures.data("Files/UploadFile.json"))
        XCTAssertEqual(upload.entries.map(\.item.id), ["5000948880"])
        XCTAssertEqual(upload.entries[0].item.contentModifiedAt?.timeIntervalSince1970, 1_360_025_872)
        let commit = try BoxJSON.decode(
            ItemPageDTO.self, from: RecordedFixtures.data("Files/ChunkedUploadSessionCommit.json"))
        XCTAssertEqual(commit.entries[0].item.size, 20_000_000)
        XCTAssertEqual(commit.entries[0].item.fileVersionID, "257047849608")
    }
}
