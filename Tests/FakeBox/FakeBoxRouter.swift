import CurlHTTP
import Crypto
import Foundation

/// One answer of the fake, before it is delivered.
struct FakeAnswer {
    var status: Int
    var headers: [(String, String)] = []
    var body: [UInt8] = []
    /// The change was made but the connection closes before the answer.
    var lost = false
    /// A download's body ends after this many bytes, then the connection closes.
    var cutAfter: Int?

    static func json(_ status: Int, _ object: Any) -> FakeAnswer {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return FakeAnswer(status: status, headers: [("Content-Type", "application/json")], body: Array(data))
    }

    static func error(_ status: Int, _ code: String, _ message: String, context: [String: Any]? = nil) -> FakeAnswer {
        var object: [String: Any] = ["type": "error", "status": status, "code": code, "message": message,
                                     "request_id": "fake"]
        if let context { object["context_info"] = context }
        return json(status, object)
    }
}

/// Box's routes over a `FakeBoxState`: a value, so a request is decided and applied in one step under the
/// fake's lock.
struct FakeBoxRouter {
    var box: FakeBoxState
    /// Whether the request changed the account (only then can its answer be "lost" after the change).
    private(set) var changed = false
    private(set) var unknown = false

    mutating func answer(_ request: HTTPRequest, body: [UInt8]) -> FakeAnswer {
        guard let components = URLComponents(string: request.url) else { return .error(400, "bad_request", "url") }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        var segments = components.path.split(separator: "/").map(String.init)
        if segments.first == "api" { segments.removeFirst() }
        if segments.first == "dl" { return download(Array(segments.dropFirst()), request) }
        guard segments.first == "2.0" else { return unknownRoute() }
        segments.removeFirst()
        let ifMatch = request.headers["If-Match"]
        do throws(FakeBoxError) {
            switch (request.method, segments.count, segments.first ?? "") {
            case (.get, 2, "users") where segments[1] == "me":
                return .json(200, ["type": "user", "id": "1", "name": "Fake User", "login": "fake@example.com",
                                   "space_amount": 1 << 40, "space_used": 0, "max_upload_size": 1 << 34])
            case (.get, 2, "folders"), (.get, 2, "files"):
                guard let item = box.items[segments[1]], item.kind.rawValue + "s" == segments[0] else { throw .notFound }
                return .json(200, json(item))
            case (.get, 3, "folders") where segments[2] == "items":
                return try listing(folderID: segments[1], query: query)
            case (.post, 1, "folders"):
                let fields = Self.object(body)
                let parent = (fields["parent"] as? [String: Any])?["id"] as? String ?? ""
                let item = try box.createFolder(name: fields["name"] as? String ?? "", parentID: parent)
                changed = true
                return .json(201, json(item))
            case (.put, 2, "folders"), (.put, 2, "files"):
                let fields = Self.object(body)
                guard let item = box.items[segments[1]], item.kind.rawValue + "s" == segments[0] else { throw .notFound }
                let parent = (fields["parent"] as? [String: Any])?["id"] as? String
                guard fields["name"] != nil || parent != nil else { return .json(200, json(item)) }
                let updated = try box.update(id: item.id, name: fields["name"] as? String, parentID: parent, ifMatch: ifMatch)
                changed = true
                return .json(200, json(updated))
            case (.delete, 2, "folders"), (.delete, 2, "files"):
                let kind: FakeBoxState.Item.Kind = segments[0] == "folders" ? .folder : .file
                try box.delete(id: segments[1], kind: kind, recursive: query["recursive"] == "true", ifMatch: ifMatch)
                changed = true
                return FakeAnswer(status: 204)
            case (.get, 3, "files") where segments[2] == "content":
                guard let item = box.items[segments[1]], item.kind == .file else { throw .notFound }
                let version = query["version"].flatMap { $0.isEmpty ? nil : $0 } ?? item.versionID
                guard version == item.versionID || item.earlierVersions[version] != nil else { throw .notFound }
                return FakeAnswer(status: 302, headers: [("Location", "\(FakeBox.apiBase)/dl/\(item.id)/\(version)")])
            case (.options, 2, "files") where segments[1] == "content":
                let fields = Self.object(body)
                let parent = (fields["parent"] as? [String: Any])?["id"] as? String ?? ""
                guard box.items[parent]?.kind == .folder else { throw .notFound }
                if let holder = box.holder(of: fields["name"] as? String ?? "", in: parent) { throw .nameInUse(holder) }
                return .json(200, ["upload_url": FakeBox.uploadBase + "/2.0/files/content", "upload_token": "fake"])
            case (.options, 3, "files") where segments[2] == "content":
                guard box.items[segments[1]]?.kind == .file else { throw .notFound }
                return .json(200, ["upload_url": FakeBox.uploadBase + "/2.0/files/\(segments[1])/content", "upload_token": "fake"])
            case (.post, 2, "files") where segments[1] == "content":
                let form = try Self.multipart(body, contentType: request.headers["Content-Type"] ?? "")
                try Self.checkDigest(form.file, request)
                let parent = (form.attributes["parent"] as? [String: Any])?["id"] as? String ?? ""
                let item = try box.uploadFile(name: form.attributes["name"] as? String ?? "", parentID: parent, content: form.file)
                changed = true
                return .json(201, ["total_count": 1, "entries": [json(item)]])
            case (.post, 3, "files") where segments[2] == "content":
                let form = try Self.multipart(body, contentType: request.headers["Content-Type"] ?? "")
                try Self.checkDigest(form.file, request)
                let item = try box.uploadVersion(fileID: segments[1], content: form.file, name: form.attributes["name"] as? String,
                                                 ifMatch: ifMatch)
                changed = true
                return .json(201, ["total_count": 1, "entries": [json(item)]])
            default:
                return unknownRoute()
            }
        } catch {
            switch error {
            case .notFound: return .error(404, "not_found", "Not Found")
            case .preconditionFailed: return .error(412, "precondition_failed", "The resource has been modified.")
            case .badRequest(let code, let message): return .error(400, code, message)
            case .nameInUse(let holder):
                // Box names the holder in its mini form: no parent, no size, no dates (as boxsim does).
                let mini = json(holder).filter { ["type", "id", "name", "etag", "sequence_id", "sha1", "file_version"].contains($0.key) }
                return .error(409, "item_name_in_use", "Item with the same name already exists",
                              context: ["conflicts": [mini]])
            }
        }
    }

    private mutating func unknownRoute() -> FakeAnswer {
        unknown = true
        return .error(405, "method_not_allowed", "the fake does not serve this")
    }

    /// Marker paging as Box's `usemarker=true`: the marker is the offset of the next page.
    private func listing(folderID: String, query: [String: String]) throws(FakeBoxError) -> FakeAnswer {
        guard box.items[folderID]?.kind == .folder else { throw .notFound }
        let all = box.children(of: folderID)
        let limit = max(1, min(Int(query["limit"] ?? "") ?? 100, 1000))
        let start = min(Int(query["marker"] ?? "") ?? 0, all.count)
        let page = all[start..<min(all.count, start + limit)]
        let next = start + page.count < all.count ? String(start + page.count) : nil
        var object: [String: Any] = ["entries": page.map(json), "limit": limit]
        object["next_marker"] = next ?? NSNull()
        return .json(200, object)
    }

    /// The pre-signed download location's answer: the version's bytes, or the range asked for.
    private func download(_ segments: [String], _ request: HTTPRequest) -> FakeAnswer {
        guard segments.count == 2, let item = box.items[segments[0]],
              let content = item.versionID == segments[1] ? item.content : item.earlierVersions[segments[1]]
        else {
            return FakeAnswer(status: 404)
        }
        guard let range = request.headers["Range"], range.hasPrefix("bytes=") else {
            return FakeAnswer(status: 200, body: content)
        }
        let bounds = range.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        guard bounds.count == 2, let first = bounds[0] else { return FakeAnswer(status: 200, body: content) }
        guard first < content.count else {
            return FakeAnswer(status: 416, headers: [("Content-Range", "bytes */\(content.count)")])
        }
        let last = min(bounds[1] ?? content.count - 1, content.count - 1)
        return FakeAnswer(status: 206, headers: [("Content-Range", "bytes \(first)-\(last)/\(content.count)")],
                          body: Array(content[first...last]))
    }

    func json(_ item: FakeBoxState.Item) -> [String: Any] {
        var object: [String: Any] = [
            "type": item.kind.rawValue, "id": item.id, "name": item.name, "etag": String(item.etag),
            "sequence_id": String(item.etag),
            "created_at": date(item.created), "modified_at": date(item.modified),
            "content_created_at": date(item.created), "content_modified_at": date(item.contentModified),
            // A folder's size (the sum of its tree, on Box) is not used by the core; 0 keeps listings cheap.
            "size": item.kind == .file ? item.content.count : 0,
        ]
        if let parent = item.parentID { object["parent"] = ["type": "folder", "id": parent] }
        if item.kind == .file {
            object["sha1"] = item.sha1
            object["file_version"] = ["type": "file_version", "id": item.versionID]
        }
        return object
    }

    /// `seconds` after the fake's epoch, as Box writes dates (UTC here).
    func date(_ seconds: Int) -> String {
        var time = time_t(box.epoch) + time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                      parts.tm_hour, parts.tm_min, parts.tm_sec)
    }

    static func object(_ body: [UInt8]) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
    }

    /// As Box: `Content-MD5` carries the SHA-1 (hex) of the file, and a body that does not match it (a file
    /// rewritten while it was read for sending) is refused with 400 `bad_digest`, nothing stored. Without this
    /// the fake stored bytes no local version ever held, and the next attempt took them for someone else's
    /// change (a conflicted copy Box would never cause).
    static func checkDigest(_ file: [UInt8], _ request: HTTPRequest) throws(FakeBoxError) {
        guard let expected = request.headers["Content-MD5"] else { return }
        guard expected.lowercased() == FakeBoxState.Item.digest(file) else {
            throw .badRequest("bad_digest", "The specified content-md5 did not match what we received")
        }
    }

    /// The `attributes` JSON and the `file` bytes of a `multipart/form-data` upload.
    static func multipart(_ body: [UInt8], contentType: String) throws(FakeBoxError) -> (attributes: [String: Any], file: [UInt8]) {
        guard let range = contentType.range(of: "boundary=") else { throw .badRequest("bad_request", "no boundary") }
        let delimiter = Data(("\r\n--" + contentType[range.upperBound...]).utf8)
        let bytes = Data("\r\n".utf8) + Data(body)
        let separator = Data("\r\n\r\n".utf8)
        var attributes: [String: Any] = [:]
        var file: [UInt8]?
        var position = bytes.startIndex
        while let start = bytes.range(of: delimiter, in: position..<bytes.endIndex) {
            guard let end = bytes.range(of: delimiter, in: start.upperBound..<bytes.endIndex) else { break }
            let part = bytes[start.upperBound..<end.lowerBound]
            position = end.lowerBound
            guard let split = part.range(of: separator) else { continue }
            let head = String(decoding: part[part.startIndex..<split.lowerBound], as: UTF8.self)
            let content = part[split.upperBound...]
            if head.contains("name=\"attributes\"") { attributes = object(Array(content)) }
            if head.contains("name=\"file\"") { file = Array(content) }
        }
        guard let file else { throw .badRequest("bad_request", "no file part") }
        return (attributes, file)
    }
}
