import Foundation
import XCTest

/// Helpers for tests that change items: text uploads, event types since a position, curl with a token.
extension SimFixture {
    /// A temp file holding `text`.
    static func textFile(_ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("text-\(UUID().uuidString)")
        try Data(text.utf8).write(to: url)
        return url
    }

    /// Uploads `text` as a new version of file `id` (as `token`'s user); the answer's file entry.
    @discardableResult
    func uploadVersion(_ id: String, text: String, token: String? = nil, expectStatus: Int = 200) throws -> CurlResult {
        let local = try Self.textFile(text)
        defer { try? FileManager.default.removeItem(at: local) }
        let result = try upload(path: "/api/2.0/files/\(id)/content", attributes: [:], file: local, token: token)
        XCTAssertEqual(result.status, expectStatus, result.text)
        return result
    }

    /// Uploads `text` as a new file `name` in `folder`; its id.
    func uploadNew(_ name: String, text: String, folder: String = "0", token: String? = nil) throws -> String {
        let local = try Self.textFile(text)
        defer { try? FileManager.default.removeItem(at: local) }
        let result = try upload(attributes: ["name": name, "parent": ["id": folder]], file: local, token: token)
        XCTAssertEqual(result.status, 201, result.text)
        return try XCTUnwrap((try result.json()["entries"] as? [[String: Any]])?.first?["id"] as? String)
    }

    /// The user's current stream position.
    func streamPosition(token: String? = nil) throws -> Int {
        let now = try Curl.run(sim.baseURL + "/2.0/events?stream_position=now", token: token ?? sim.developerToken).json()
        return try XCTUnwrap(now["next_stream_position"] as? Int)
    }

    /// (event_type, source id) of the user's `changes` events after `position`.
    func changes(after position: Int, token: String? = nil) throws -> [(type: String, id: String?)] {
        let page = try Curl.run(sim.baseURL + "/2.0/events?stream_type=changes&stream_position=\(position)",
                                token: token ?? sim.developerToken).json()
        return (page["entries"] as? [[String: Any]] ?? []).map {
            ($0["event_type"] as? String ?? "", ($0["source"] as? [String: Any])?["id"] as? String)
        }
    }

    /// curl with `token` (default the developer token), any method, optional JSON body.
    func call(_ method: String, _ path: String, json: [String: Any?]? = nil, token: String? = nil,
              headers: [String: String] = [:]) throws -> CurlResult {
        var extra: [String] = []
        var allHeaders = headers
        if let json {
            let data = try JSONSerialization.data(withJSONObject: json.mapValues { $0 ?? NSNull() })
            extra = ["--data-binary", String(decoding: data, as: UTF8.self)]
            allHeaders["Content-Type"] = "application/json"
        }
        return try Curl.run(sim.baseURL + path, token: token ?? sim.developerToken, headers: allHeaders, method: method,
                            extra: extra)
    }

    /// A token for a new managed user: (user id, access token).
    func otherUser(name: String = "Other User") throws -> (id: String, token: String) {
        let id = try createUser(name: name)
        let minted = try postJSON("/_control/tokens", ["user_id": id]).json()
        return (id, try XCTUnwrap(minted["access_token"] as? String))
    }

    /// A new user given `role` on the admin's item `itemID` (`type` folder or file): (user id, access token).
    func collaborator(on itemID: String, role: String, type: String = "folder") throws -> (id: String, token: String) {
        let user = try otherUser()
        let added = try call("POST", "/2.0/collaborations", json: [
            "item": ["type": type, "id": itemID], "accessible_by": ["type": "user", "id": user.id], "role": role,
        ])
        XCTAssertEqual(added.status, 201, added.text)
        return user
    }
}
