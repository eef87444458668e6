import Foundation

/// Another user's folder with a shared link, built through boxsim's own API with curl (control API for the
/// user and its token, then folder create, uploads and `PUT /2.0/folders/{id}` with `shared_link`).
public struct OtherUserShare {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The other user's id and access token.
    public let userID: String
    public let token: String
    public let folderID: String
    /// Relative path → id of each uploaded file.
    public let fileIDs: [String: String]
    /// Relative path → id of each folder below the shared one.
    public let folderIDs: [String: String]
    /// The shared link object as boxsim answered it.
    public let sharedLink: [String: Any]
    public var url: String { sharedLink["url"] as? String ?? "" }

    /// Creates user `name`, its folder `folderName` in its root holding `files` (relative path → bytes; parent
    /// folders made on the way), and shares the folder with `link` (the `shared_link` JSON member).
    public static func make(_ sim: BoxSimProcess, name: String = "Other User", folderName: String = "Shared",
                            files: [String: Data], link: [String: Any] = ["access": "open"]) throws -> OtherUserShare {
        let user = try call(sim, "POST", "/_control/users", token: nil, json: ["name": name, "kind": "user"])
        guard let userID = user["id"] as? String else { throw Failure(description: "no user id: \(user)") }
        let issued = try call(sim, "POST", "/_control/tokens", token: nil, json: ["user_id": userID])
        guard let token = issued["access_token"] as? String else { throw Failure(description: "no token") }
        let folderID = try createFolder(sim, token: token, name: folderName, parent: "0")
        var folderIDs: [String: String] = [:]
        var fileIDs: [String: String] = [:]
        for (path, bytes) in files.sorted(by: { $0.key < $1.key }) {
            var parent = folderID
            var prefix = ""
            let parts = path.split(separator: "/").map(String.init)
            for folder in parts.dropLast() {
                prefix += (prefix.isEmpty ? "" : "/") + folder
                if let known = folderIDs[prefix] { parent = known; continue }
                parent = try createFolder(sim, token: token, name: folder, parent: parent)
                folderIDs[prefix] = parent
            }
            fileIDs[path] = try upload(sim, token: token, name: parts.last!, parent: parent, bytes: bytes)
        }
        let shared = try call(sim, "PUT", "/2.0/folders/\(folderID)?fields=shared_link", token: token,
                              json: ["shared_link": link])
        guard let sharedLink = shared["shared_link"] as? [String: Any] else {
            throw Failure(description: "sharing failed: \(shared)")
        }
        return OtherUserShare(userID: userID, token: token, folderID: folderID, fileIDs: fileIDs,
                              folderIDs: folderIDs, sharedLink: sharedLink)
    }

    public static func createFolder(_ sim: BoxSimProcess, token: String, name: String, parent: String) throws -> String {
        let folder = try call(sim, "POST", "/2.0/folders", token: token, json: ["name": name, "parent": ["id": parent]])
        guard let id = folder["id"] as? String else { throw Failure(description: "folder create failed: \(folder)") }
        return id
    }

    public static func upload(_ sim: BoxSimProcess, token: String, name: String, parent: String, bytes: Data) throws -> String {
        let local = FileManager.default.temporaryDirectory.appendingPathComponent("share-\(UUID().uuidString)")
        try bytes.write(to: local)
        defer { try? FileManager.default.removeItem(at: local) }
        let attributes = String(decoding: try JSONSerialization.data(withJSONObject: ["name": name,
                                                                                      "parent": ["id": parent]]),
                                as: UTF8.self)
        let answer = try curl(["-X", "POST", "-H", "Authorization: Bearer \(token)", "-H", "Expect:",
                               "--form-string", "attributes=\(attributes)", "-F", "file=@\(local.path);filename=\"\"",
                               sim.baseURL + "/api/2.0/files/content"])
        guard let id = (answer["entries"] as? [[String: Any]])?.first?["id"] as? String else {
            throw Failure(description: "upload failed: \(answer)")
        }
        return id
    }

    /// One JSON call; the answer must be a JSON object.
    public static func call(_ sim: BoxSimProcess, _ method: String, _ path: String, token: String?,
                            json: [String: Any]) throws -> [String: Any] {
        var arguments = ["-X", method, "-H", "Content-Type: application/json",
                         "--data-binary", String(decoding: try JSONSerialization.data(withJSONObject: json), as: UTF8.self)]
        if let token { arguments += ["-H", "Authorization: Bearer \(token)"] }
        return try curl(arguments + [sim.baseURL + path])
    }

    private static func curl(_ arguments: [String]) throws -> [String: Any] {
        let result = try Shell.run(["curl", "-s", "-S", "-g"] + arguments, timeout: 30)
        guard result.succeeded,
              let object = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        else { throw Failure(description: "curl \(arguments.last ?? ""): \(result.stderr) \(result.stdout.prefix(300))") }
        return object
    }
}
