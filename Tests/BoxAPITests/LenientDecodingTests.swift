import Foundation
import XCTest

@testable import BoxAPI

/// The variations of Box's JSON that real responses show.
final class LenientDecodingTests: XCTestCase {
    private func user(spaceAmount: String) throws -> BoxUser {
        let json = #"{"type":"user","id":"1","name":"n","login":"l","space_amount":\#(spaceAmount),"space_used":5}"#
        return try BoxJSON.decode(UserDTO.self, from: Data(json.utf8)).user
    }

    func testHugeAndIEEEQuotas() throws {
        XCTAssertEqual(try user(spaceAmount: "999999999999999").spaceAmount, 999_999_999_999_999)
        XCTAssertEqual(try user(spaceAmount: "1.0e+15").spaceAmount, 1_000_000_000_000_000)
        XCTAssertEqual(try user(spaceAmount: "1E15").spaceAmount, 1_000_000_000_000_000)
        XCTAssertEqual(try user(spaceAmount: "1.2318237429383e+31").spaceAmount, Int64.max)
        XCTAssertEqual(try user(spaceAmount: "\"10737418240\"").spaceAmount, 10_737_418_240)
        XCTAssertNil(try user(spaceAmount: "1").maxUploadSize)
        XCTAssertThrowsError(try user(spaceAmount: "\"lots\""))
        XCTAssertThrowsError(try user(spaceAmount: "null"))
    }

    func testFolderSizeInIEEENotationAndNumericIDs() throws {
        let json = #"{"type":"folder","id":12345,"name":"big","size":1.2318237429383e+31,"parent":{"id":0}}"#
        let folder = try BoxJSON.decode(ItemDTO.self, from: Data(json.utf8)).item
        XCTAssertEqual(folder.id, "12345")
        XCTAssertEqual(folder.size, Int64.max)
        XCTAssertEqual(folder.parentID, "0")
    }

    func testNullsAreAbsentValues() throws {
        let json = #"""
            {"type":"file","id":"9","name":"x","size":null,"etag":null,"sequence_id":null,"sha1":null,
             "file_version":null,"parent":null,"created_at":null,"content_modified_at":null}
            """#
        let file = try BoxJSON.decode(ItemDTO.self, from: Data(json.utf8)).item
        XCTAssertEqual(file, BoxItem(id: "9", kind: .file, name: "x"))
    }

    func testErrorPathsNameTheFailingEntry() {
        let json = #"{"entries":[{"type":"file","id":"1","name":"a"},{"type":"file","id":"2"}],"next_marker":null}"#
        XCTAssertThrowsError(try BoxJSON.decode(ItemPageDTO.self, from: Data(json.utf8))) { error in
            XCTAssertTrue("\(error)".contains("entries[1].name: required field is missing"), "\(error)")
        }
        XCTAssertThrowsError(try BoxJSON.decode(ItemPageDTO.self, from: Data("<html>".utf8))) { error in
            guard case .decoding = (error as? BoxAPIError)?.kind else { return XCTFail("\(error)") }
        }
    }

    func testConflictsAsObjectOrArray() throws {
        let one = #"""
            {"type":"error","status":409,"code":"item_name_in_use","message":"Item with the same name already exists",
             "request_id":"abc","context_info":{"conflicts":{"type":"file","id":"77","name":"sql-output.txt",
             "sequence_id":"0","etag":"0","sha1":"A9993E364706816ABA3E25717850C26C9CD0D89D",
             "file_version":{"type":"file_version","id":"88"}}}}
            """#
        let body = try JSONDecoder().decode(ErrorBodyDTO.self, from: Data(one.utf8))
        XCTAssertEqual(body.code, "item_name_in_use")
        XCTAssertEqual(body.conflicts.map(\.id), ["77"])
        XCTAssertEqual(body.conflicts.first?.fileVersionID, "88")
        XCTAssertEqual(body.conflicts.first?.sha1, "a9993e364706816aba3e25717850c26c9cd0d89d")

        let many = #"""
            {"type":"error","status":409,"code":"item_name_in_use","context_info":{"conflicts":[
             {"type":"folder","id":"1","name":"A"},{"type":"folder","id":"2","name":"B"}]}}
            """#
        XCTAssertEqual(try JSONDecoder().decode(ErrorBodyDTO.self, from: Data(many.utf8)).conflicts.map(\.name), ["A", "B"])
    }
}
