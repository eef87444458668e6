import Foundation

/// Changing Box "elsewhere", as another client would: new files, folders, renames, moves, deletes.
extension BoxSimAPI {
    /// Uploads a new file `name` with `text` into folder `parentID`.
    @discardableResult
    public func uploadFile(named name: String, text: String, parentID: String = "0") throws -> BoxEntry {
        try uploadFile(named: name, data: Data(text.utf8), parentID: parentID)
    }

    public func uploadFile(named name: String, data: Data, parentID: String = "0") throws -> BoxEntry {
        let local = FileManager.default.temporaryDirectory.appendingPathComponent("box-new-\(UUID().uuidString)")
        try data.write(to: local)
        defer { try? FileManager.default.removeItem(at: local) }
        let attributes = "{\"name\":\"\(name)\",\"parent\":{\"id\":\"\(parentID)\"}}"
        let answer = try call("POST", "/api/2.0/files/content?fields=\(Self.fields)",
                              extraArguments: ["-H", "Expect:", "-F", "attributes=\(attributes)", "-F", "file=@\(local.path)"])
        guard let first = (answer["entries"] as? [[String: Any]])?.first else {
            throw Failure(description: "uploading \(name): \(answer)")
        }
        return BoxEntry(json: first)
    }

    public func createFolder(named name: String, parentID: String = "0") throws -> BoxEntry {
        BoxEntry(json: try call("POST", "/2.0/folders", json: ["name": name, "parent": ["id": parentID]]))
    }

    public func renameFile(_ id: String, to name: String) throws {
        try call("PUT", "/2.0/files/\(id)", json: ["name": name])
    }

    public func moveFile(_ id: String, toFolder parentID: String) throws {
        try call("PUT", "/2.0/files/\(id)", json: ["parent": ["id": parentID]])
    }

    public func deleteFile(_ id: String) throws {
        try call("DELETE", "/2.0/files/\(id)")
    }

    /// boxsim holds a long poll this many seconds before answering `reconnect` (Box: about 610).
    public func setLongPollTimeout(_ seconds: Int) throws {
        try call("PUT", "/_control/settings", json: ["long_poll_timeout": seconds])
    }
}

