import BoxAPI
import Foundation
import XCTest

@testable import WriteBack

final class NamingAndPlanTests: XCTestCase {
    func testConflictNames() {
        let date = Date(timeIntervalSince1970: 1_795_874_838)  // 2026-11-28 14:07:18 UTC
        XCTAssertEqual(ConflictName.make(from: "report.final.txt", at: date), "report.final (conflict 2026-11-28 140718).txt")
        XCTAssertEqual(ConflictName.make(from: "README", at: date), "README (conflict 2026-11-28 140718)")
        XCTAssertEqual(ConflictName.make(from: ".bashrc", at: date), ".bashrc (conflict 2026-11-28 140718)")
        XCTAssertEqual(ConflictName.make(from: "a.txt", at: date, attempt: 3), "a (conflict 2026-11-28 140718 3).txt")
        let long = String(repeating: "é", count: 127) + ".txt"  // 258 bytes
        let copy = ConflictName.make(from: long, at: date)
        XCTAssertLessThanOrEqual(copy.utf8.count, 255)
        XCTAssertTrue(copy.hasSuffix(" (conflict 2026-11-28 140718).txt"))
    }

    func testPartPlan() {
        XCTAssertEqual(PartPlan.missing(fileSize: 25, partSize: 10, uploadedOffsets: []), [0..<10, 10..<20, 20..<25])
        XCTAssertEqual(PartPlan.missing(fileSize: 25, partSize: 10, uploadedOffsets: [0, 20]), [10..<20])
        XCTAssertEqual(PartPlan.missing(fileSize: 30, partSize: 10, uploadedOffsets: [0, 10, 20]), [])
        XCTAssertEqual(PartPlan.missing(fileSize: 0, partSize: 10, uploadedOffsets: []), [])
    }

    func testFailureClassification() {
        func error(_ status: Int, _ code: String?) -> BoxAPIError {
            BoxAPIError(kind: BoxAPIError.kind(forStatus: status), status: status, code: code)
        }
        XCTAssertEqual(UploadFailure.classify(error(403, "storage_limit_exceeded"), forVersion: false), .storageFull)
        XCTAssertEqual(UploadFailure.classify(error(413, nil), forVersion: false), .fileTooLarge)
        XCTAssertEqual(UploadFailure.classify(error(412, "precondition_failed"), forVersion: true), .changedOnBox)
        XCTAssertEqual(UploadFailure.classify(error(409, "item_name_in_use"), forVersion: false), .nameTaken)
        XCTAssertEqual(UploadFailure.classify(error(404, "not_found"), forVersion: true), .targetGone)
        XCTAssertEqual(UploadFailure.classify(error(400, "bad_digest"), forVersion: false), .contentChanged)
        guard case .transient = UploadFailure.classify(error(503, nil), forVersion: false) else {
            return XCTFail("5xx is transient")
        }
        guard case .parentGone = UploadFailure.classify(error(404, "not_found"), forVersion: false) else {
            return XCTFail("404 on a new file means the folder is gone")
        }
    }
}
