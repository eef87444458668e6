import BoxTestSupport
import Foundation
import XCTest

/// Shared by the `boxfs versions|restore|trash|link|lock|unlock|search` tests: running a command, a second Box
/// user with a token of its own, and reading Box as that user.
class BoxCommandTestCase: WriteTestCase {
    /// Mounts that neither follow events nor list again within a test, so what a command changes is seen
    /// only through what the command itself told the mount.
    static let quietOptions = ["events=off", "dir_cache_ttl=600"]

    func boxfs(_ arguments: [String], timeout: Double = 120) throws -> CommandResult {
        try Shell.run([try MountFixture.locateBinary().path] + arguments, timeout: timeout)
    }

    /// Runs a command that must succeed; answers its stdout.
    @discardableResult
    func boxfsSucceeds(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try boxfs(arguments)
        XCTAssertEqual(result.status, 0, "boxfs \(arguments.joined(separator: " ")): \(result.stderr)", file: file, line: line)
        return result.stdout
    }

    /// Runs a command that must fail with exit status 1 and exactly one line on stderr; answers that line.
    func boxfsFails(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try boxfs(arguments)
        XCTAssertEqual(result.status, 1, "boxfs \(arguments.joined(separator: " ")): \(result.stdout)", file: file, line: line)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr, file: file, line: line)
        XCTAssertTrue(result.stderr.hasSuffix("\n"), result.stderr, file: file, line: line)
        return result.stderr
    }

    /// A second Box user (`login`) with a token of its own.
    func otherUser(_ login: String = "colleague@example.com") throws -> (id: String, api: BoxSimAPI) {
        let sim = try XCTUnwrap(boxsim)
        let user = try OtherUserShare.call(sim, "POST", "/_control/users", token: nil,
                                           json: ["name": "Colleague", "kind": "user", "login": login])
        let userID = try XCTUnwrap(user["id"] as? String)
        let issued = try OtherUserShare.call(sim, "POST", "/_control/tokens", token: nil, json: ["user_id": userID])
        return (userID, BoxSimAPI(sim, token: try XCTUnwrap(issued["access_token"] as? String)))
    }

    /// Makes the other user an editor of the admin's folder `folderID`.
    func collaborate(_ userID: String, on folderID: String) throws {
        _ = try api.call("POST", "/2.0/collaborations", json: [
            "item": ["type": "folder", "id": folderID], "accessible_by": ["type": "user", "id": userID], "role": "editor"])
    }

    func jsonObject(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    /// A file holding `text` with `mode`.
    func secretFile(_ text: String, mode: Int) throws -> String {
        let path = try makeTemporaryDirectory().appendingPathComponent("secret").path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
        XCTAssertEqual(chmod(path, mode_t(mode)), 0)
        return path
    }
}
