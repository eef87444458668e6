import BoxTestSupport
import Foundation
import XCTest

/// users/me, folder and file info against a real boxsim process.
final class ReadEndpointTests: XCTestCase {
    func testUsersMeReportsSpaceUsedFromSeededFiles() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let me = try fixture.getJSON("/2.0/users/me")
        XCTAssertEqual(me["type"] as? String, "user")
        XCTAssertNotNil(me["id"] as? String)
        let seedBytes = try FileManager.default.subpathsOfDirectory(atPath: fixture.seed.path).reduce(Int64(0)) {
            let attributes = try FileManager.default.attributesOfItem(atPath: fixture.seed.appendingPathComponent($1).path)
            return $0 + ((attributes[.type] as? FileAttributeType) == .typeRegular ? (attributes[.size] as! NSNumber).int64Value : 0)
        }
        XCTAssertEqual((me["space_used"] as? NSNumber)?.int64Value, seedBytes)
        XCTAssertGreaterThan((me["space_amount"] as? NSNumber)?.int64Value ?? 0, seedBytes)
        XCTAssertNotNil(me["max_upload_size"] as? NSNumber)
        XCTAssertEqual(me["status"] as? String, "active")

        let slim = try fixture.getJSON("/2.0/users/me?fields=login")
        XCTAssertEqual(Set(slim.keys), ["type", "id", "login"])
    }

    func testRootFolderIsFolderZeroWithItemCollection() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let root = try fixture.getJSON("/2.0/folders/0")
        XCTAssertEqual(root["id"] as? String, "0")
        XCTAssertEqual(root["name"] as? String, "All Files")
        XCTAssertTrue(root["parent"] is NSNull)
        let path = root["path_collection"] as? [String: Any]
        XCTAssertEqual(path?["total_count"] as? Int, 0)
        let collection = try XCTUnwrap(root["item_collection"] as? [String: Any])
        let names = (collection["entries"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
        XCTAssertEqual(names, ["docs", "many", "big.bin", "hello.txt"], "folders first, then files, by name")
        XCTAssertEqual(collection["total_count"] as? Int, 4)
    }

    func testFolderInfoHasPathCollectionAndParent() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let subID = try fixture.id(of: "docs/sub")
        let docsID = try fixture.id(of: "docs")
        let sub = try fixture.getJSON("/2.0/folders/\(subID)")
        XCTAssertEqual(sub["type"] as? String, "folder")
        XCTAssertEqual((sub["parent"] as? [String: Any])?["id"] as? String, docsID)
        let entries = (sub["path_collection"] as? [String: Any])?["entries"] as? [[String: Any]]
        XCTAssertEqual(entries?.compactMap { $0["id"] as? String }, ["0", docsID])
        XCTAssertEqual((sub["size"] as? NSNumber)?.intValue, "deep\n".utf8.count)
        XCTAssertNotNil(sub["etag"] as? String)
        XCTAssertNotNil(sub["created_at"] as? String)
    }

    func testFileInfoCarriesRealSHA1AndStandardFields() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let fileID = try fixture.id(of: "docs/a.txt")
        let file = try fixture.getJSON("/2.0/files/\(fileID)")
        let expectedSHA1 = try Curl.sha1(of: fixture.seed.appendingPathComponent("docs/a.txt"))
        XCTAssertEqual(file["sha1"] as? String, expectedSHA1)
        XCTAssertEqual((file["file_version"] as? [String: Any])?["sha1"] as? String, expectedSHA1)
        XCTAssertEqual((file["size"] as? NSNumber)?.intValue, "alpha\nneedle line\n".utf8.count)
        for key in ["etag", "sequence_id", "content_created_at", "content_modified_at", "created_at", "modified_at",
                    "item_status", "owned_by", "parent", "path_collection", "name"] {
            XCTAssertNotNil(file[key], "missing \(key)")
        }
        XCTAssertEqual((file["path_collection"] as? [String: Any])?["total_count"] as? Int, 2)

        let big = try fixture.getJSON("/2.0/files/\(try fixture.id(of: "big.bin"))?fields=sha1,size")
        XCTAssertEqual(big["sha1"] as? String, try Curl.sha1(of: fixture.seed.appendingPathComponent("big.bin")))
        XCTAssertEqual((big["size"] as? NSNumber)?.intValue, SimFixture.bigFileSize)
        XCTAssertEqual(Set(big.keys), ["type", "id", "etag", "sha1", "size"])
    }

    func testIfNoneMatchOnFileAnswers304() async throws {
        let fixture = try await SimFixture.start()
        defer { fixture.stop() }
        let fileID = try fixture.id(of: "hello.txt")
        let etag = try XCTUnwrap(try fixture.getJSON("/2.0/files/\(fileID)")["etag"] as? String)
        XCTAssertEqual(try fixture.get("/2.0/files/\(fileID)", headers: ["If-None-Match": etag]).status, 304)
        XCTAssertEqual(try fixture.get("/2.0/files/\(fileID)", headers: ["If-None-Match": "nope"]).status, 200)
    }
}
