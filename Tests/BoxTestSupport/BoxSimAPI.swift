import Foundation

/// A file or folder as Box describes it: the fields write tests compare a mount against.
public struct BoxEntry: Sendable, Equatable, CustomStringConvertible {
    public var id: String
    /// `file` or `folder`.
    public var type: String
    public var name: String
    public var size: Int64
    public var sha1: String?
    public var versionID: String?
    public var etag: String?
    /// RFC 3339, as Box sends it.
    public var contentModifiedAt: String?
    public var parentID: String?

    public var isFolder: Bool { type == "folder" }
    public var description: String { "\(type) \(id) '\(name)' \(size) B sha1=\(sha1 ?? "-")" }

    public init(json: [String: Any]) {
        id = json["id"] as? String ?? ""
        type = json["type"] as? String ?? ""
        name = json["name"] as? String ?? ""
        size = (json["size"] as? NSNumber)?.int64Value ?? 0
        sha1 = json["sha1"] as? String
        versionID = (json["file_version"] as? [String: Any])?["id"] as? String
        etag = json["etag"] as? String
        contentModifiedAt = json["content_modified_at"] as? String
        parentID = (json["parent"] as? [String: Any])?["id"] as? String
    }

    /// `content_modified_at` as seconds since 1970.
    public var contentModifiedEpoch: Int? {
        guard let text = contentModifiedAt else { return nil }
        return (ISO8601DateFormatter().date(from: text)?.timeIntervalSince1970).map { Int($0) }
    }
}

/// Box as another client sees it: boxsim's Box API and control API called with curl and the admin's token.
/// Write tests read what Box really holds through this, never through the mount under test.
public struct BoxSimAPI: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public let baseURL: String
    public let token: String
    static let fields = "type,id,name,size,sha1,file_version,etag,content_modified_at,parent"

    public init(_ sim: BoxSimProcess, token: String? = nil) {
        baseURL = sim.baseURL
        self.token = token ?? sim.developerToken
    }

    /// One call; answers the status and the JSON object of the body (empty for an empty body).
    public func request(_ method: String, _ path: String, json: [String: Any]? = nil,
                        extraArguments: [String] = []) throws -> (status: Int, body: [String: Any]) {
        var arguments = ["curl", "-s", "-S", "-g", "-X", method, "-w", "\n%{http_code}",
                         "-H", "Authorization: Bearer \(token)"]
        if let json {
            arguments += ["-H", "Content-Type: application/json", "--data-binary",
                          String(decoding: try JSONSerialization.data(withJSONObject: json), as: UTF8.self)]
        }
        let result = try Shell.run(arguments + extraArguments + [baseURL + path], timeout: 60)
        guard result.succeeded, let newline = result.stdout.lastIndex(of: "\n"),
              let status = Int(result.stdout[result.stdout.index(after: newline)...])
        else { throw Failure(description: "curl \(method) \(path): \(result.stderr)") }
        let text = result.stdout[..<newline]
        guard !text.isEmpty else { return (status, [:]) }
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw Failure(description: "\(method) \(path) answered \(status) with non-JSON: \(text.prefix(300))")
        }
        return (status, object)
    }

    /// One call that must succeed (2xx); answers its JSON object.
    @discardableResult
    public func call(_ method: String, _ path: String, json: [String: Any]? = nil,
                     extraArguments: [String] = []) throws -> [String: Any] {
        let (status, body) = try request(method, path, json: json, extraArguments: extraArguments)
        guard (200..<300).contains(status) else {
            throw Failure(description: "\(method) \(path) → \(status): \(body)")
        }
        return body
    }

    // MARK: Reading the tree

    /// Every entry of a folder (all pages).
    public func items(in folderID: String) throws -> [BoxEntry] {
        var entries: [BoxEntry] = []
        while true {
            let query = "limit=1000&offset=\(entries.count)&fields=\(Self.fields)"
            let page = try call("GET", "/2.0/folders/\(folderID)/items?\(query)")
            let batch = (page["entries"] as? [[String: Any]] ?? []).map(BoxEntry.init(json:))
            entries += batch
            let total = (page["total_count"] as? NSNumber)?.intValue ?? entries.count
            if batch.isEmpty || entries.count >= total { return entries }
        }
    }

    /// The entry at `path` (`a/b/c.txt`, relative to the root folder "0"), or nil.
    public func entry(at path: String) throws -> BoxEntry? {
        var folderID = "0"
        let names = path.split(separator: "/").map(String.init)
        for (index, name) in names.enumerated() {
            guard let found = try items(in: folderID).first(where: { $0.name == name }) else { return nil }
            if index == names.count - 1 { return found }
            guard found.isFolder else { return nil }
            folderID = found.id
        }
        return try folder("0")
    }

    /// Every entry below a folder by relative path; folders too, with a trailing `/`.
    public func tree(_ folderID: String = "0", prefix: String = "") throws -> [String: BoxEntry] {
        var result: [String: BoxEntry] = [:]
        for entry in try items(in: folderID) {
            let path = prefix + entry.name
            if entry.isFolder {
                result[path + "/"] = entry
                result.merge(try tree(entry.id, prefix: path + "/")) { first, _ in first }
            } else {
                result[path] = entry
            }
        }
        return result
    }

    public func file(_ id: String) throws -> BoxEntry {
        BoxEntry(json: try call("GET", "/2.0/files/\(id)?fields=\(Self.fields)"))
    }

    public func folder(_ id: String) throws -> BoxEntry {
        BoxEntry(json: try call("GET", "/2.0/folders/\(id)?fields=type,id,name,etag,parent"))
    }

    /// Downloads a file (or one of its versions) to `destination`.
    public func download(_ id: String, version: String? = nil, to destination: URL) throws {
        let query = version.map { "?version=\($0)" } ?? ""
        let result = try Shell.run(["curl", "-s", "-S", "-f", "-L", "-g", "-H", "Authorization: Bearer \(token)",
                                    "-o", destination.path, "\(baseURL)/2.0/files/\(id)/content\(query)"], timeout: 300)
        guard result.succeeded else { throw Failure(description: "download of \(id): \(result.stderr)") }
    }

    /// The bytes of a small file, as text.
    public func text(of id: String, version: String? = nil) throws -> String {
        let local = FileManager.default.temporaryDirectory.appendingPathComponent("box-dl-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: local) }
        try download(id, version: version, to: local)
        return try String(contentsOf: local, encoding: .utf8)
    }

    // MARK: Changing Box as another client would

    /// Uploads `data` as a new version of file `id` (a change "made on the web").
    @discardableResult
    public func uploadVersion(of id: String, data: Data) throws -> BoxEntry {
        let local = FileManager.default.temporaryDirectory.appendingPathComponent("box-up-\(UUID().uuidString)")
        try data.write(to: local)
        defer { try? FileManager.default.removeItem(at: local) }
        let answer = try call("POST", "/api/2.0/files/\(id)/content?fields=\(Self.fields)",
                              extraArguments: ["-H", "Expect:", "-F", "attributes={}", "-F", "file=@\(local.path)"])
        guard let first = (answer["entries"] as? [[String: Any]])?.first else {
            throw Failure(description: "new version of \(id): \(answer)")
        }
        return BoxEntry(json: first)
    }

    /// Creates (or updates) the file's shared link; answers its URL.
    public func shareLink(fileID: String) throws -> String {
        let answer = try call("PUT", "/2.0/files/\(fileID)?fields=shared_link",
                              json: ["shared_link": ["access": "open"]])
        guard let url = (answer["shared_link"] as? [String: Any])?["url"] as? String else {
            throw Failure(description: "no shared link: \(answer)")
        }
        return url
    }

    public func sharedLinkURL(fileID: String) throws -> String? {
        (try call("GET", "/2.0/files/\(fileID)?fields=shared_link")["shared_link"] as? [String: Any])?["url"] as? String
    }
}
