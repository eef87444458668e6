import CurlHTTP
import Foundation
import XCTest

@testable import BoxAPI

/// Calls that are not idempotent are repeated after a failure that may have been carried out, and
/// recognise the effect of their own first attempt in the repeat's answer.
final class RepeatResolutionTests: XCTestCase {
    private let lostAnswer = HTTPError(kind: .transport, message: "Connection reset by peer", curlCode: 56)
    private let serverError = ScriptedHTTP.response(
        500, json: #"{"type":"error","status":500,"code":"internal_server_error","message":"Internal Server Error"}"#)
    private let notFound = ScriptedHTTP.response(
        404, json: #"{"type":"error","status":404,"code":"not_found","message":"Not Found"}"#)

    private func nameInUse(_ id: String) -> HTTPResponse {
        ScriptedHTTP.response(409, json: """
            {"type":"error","status":409,"code":"item_name_in_use","message":"Item with the same name already exists",
             "context_info":{"conflicts":[{"type":"folder","id":"\(id)","sequence_id":"0","etag":"0","name":"made"}]}}
            """)
    }

    private func folderJSON(_ id: String, createdAt: Date) -> String {
        let created = BoxDate.format(createdAt)
        return #"{"type":"folder","id":"\#(id)","name":"made","etag":"0","created_at":"\#(created)","parent":{"type":"folder","id":"0"}}"#
    }

    func testADeleteRepeatedAfterAServerErrorTakesA404AsItsOwnSuccess() async throws {
        let (error, missing) = (serverError, notFound)
        let http = ScriptedHTTP { _, index in index == 0 ? error : missing }
        try await BoxClient.scripted(http).deleteFile(id: "7")
        XCTAssertEqual(http.requests.map(\.method), [.delete, .delete])
    }

    func testADeleteWhoseFirstAnswerIsA404StillFails() async throws {
        let missing = notFound
        let http = ScriptedHTTP { _, _ in missing }
        do {
            try await BoxClient.scripted(http).deleteFolder(id: "7", recursive: false)
            XCTFail("expected not found")
        } catch let error as BoxAPIError {
            XCTAssertEqual(error.kind, .notFound)
        }
        XCTAssertEqual(http.requests.count, 1)
    }

    func testAFolderCreateWhoseAnswerWasLostReturnsTheFolderItMade() async throws {
        let conflict = nameInUse("55"), folder = folderJSON("55", createdAt: Date())
        let reset = lostAnswer
        let http = ScriptedHTTP { request, index in
            switch index {
            case 0: throw reset
            case 1: return conflict
            default:
                XCTAssertEqual(request.method, .get)
                return ScriptedHTTP.response(200, json: folder)
            }
        }
        let made = try await BoxClient.scripted(http).createFolder(name: "made", parentID: "0")
        XCTAssertEqual(made.id, "55")
        XCTAssertEqual(http.requests.map(\.method), [.post, .post, .get])
    }

    func testAConflictAfterARateLimitIsSomeoneElsesFolder() async throws {
        // A 429 was refused before it was carried out: the 409 that follows is a real name clash.
        let conflict = nameInUse("55")
        let limited = ScriptedHTTP.response(429, headers: [("Retry-After", "0")])
        let http = ScriptedHTTP { _, index in index == 0 ? limited : conflict }
        do {
            _ = try await BoxClient.scripted(http).createFolder(name: "made", parentID: "0")
            XCTFail("expected item_name_in_use")
        } catch let error as BoxAPIError {
            XCTAssertTrue(error.isNameInUse)
        }
        XCTAssertEqual(http.requests.count, 2)
    }

    func testAnOldFolderOfTheSameNameIsNotTakenForTheOneAFailedAttemptMade() async throws {
        let conflict = nameInUse("55"), folder = folderJSON("55", createdAt: Date().addingTimeInterval(-86_400))
        let error = serverError
        let http = ScriptedHTTP { _, index in
            switch index {
            case 0: return error
            case 1: return conflict
            default: return ScriptedHTTP.response(200, json: folder)
            }
        }
        do {
            _ = try await BoxClient.scripted(http).createFolder(name: "made", parentID: "0")
            XCTFail("expected item_name_in_use")
        } catch let error as BoxAPIError {
            XCTAssertTrue(error.isNameInUse)
        }
    }

    func testARenameWithIfMatchRepeatedAfterALostAnswerAcceptsTheChangeItMade() async throws {
        let reset = lostAnswer
        let renamed = #"{"type":"file","id":"42","name":"b.txt","etag":"2","parent":{"type":"folder","id":"0"}}"#
        let http = ScriptedHTTP { _, index in
            switch index {
            case 0: throw reset
            case 1: return ScriptedHTTP.response(412, json: #"{"type":"error","status":412,"code":"precondition_failed"}"#)
            default: return ScriptedHTTP.response(200, json: renamed)
            }
        }
        let item = try await BoxClient.scripted(http).updateFile(id: "42", name: "b.txt", ifMatch: "1")
        XCTAssertEqual(item.name, "b.txt")
        XCTAssertEqual(http.requests.map(\.method), [.put, .put, .get])
    }
}
