import Foundation

/// Questions write tests ask of boxsim's request log.
extension Array where Element == LoggedRequest {
    /// Requests logged after `sequence` (exclusive).
    public func after(_ sequence: Int) -> [LoggedRequest] { filter { $0.seq > sequence } }

    /// Requests with this method whose path matches the regular expression `pattern` (anchored at both ends).
    public func matching(_ method: String, _ pattern: String) -> [LoggedRequest] {
        let regex = try? NSRegularExpression(pattern: "^" + pattern + "$")
        return filter { request in
            guard request.method == method, let regex else { return false }
            let range = NSRange(request.path.startIndex..., in: request.path)
            return regex.firstMatch(in: request.path, range: range) != nil
        }
    }

    /// Those answered 2xx.
    public var succeeded: [LoggedRequest] { filter { (200..<300).contains($0.status) } }

    /// Requests that change Box (anything but GET, HEAD and OPTIONS).
    public var writes: [LoggedRequest] { filter { !["GET", "HEAD", "OPTIONS"].contains($0.method) } }

    /// One line per request, for failure messages.
    public var summary: String { map { "\($0.seq) \($0.method) \($0.path) → \($0.status)" }.joined(separator: "\n") }
}

/// Path patterns of Box's upload endpoints, for `matching(_:_:)`.
public enum UploadPaths {
    /// `POST /api/2.0/files/content`: a new file in one request.
    public static let newFile = "/api/2.0/files/content"
    /// `POST /api/2.0/files/{id}/content`: a new version in one request.
    public static func newVersion(_ id: String = "[0-9]+") -> String { "/api/2.0/files/\(id)/content" }
    /// `POST /api/2.0/files/upload_sessions` (new file) or `/api/2.0/files/{id}/upload_sessions` (new version).
    public static let sessionCreate = "/api/2.0/files/([0-9]+/)?upload_sessions"
    /// `PUT /api/2.0/files/upload_sessions/{session}`: one part.
    public static func part(_ session: String = "[^/]+") -> String { "/api/2.0/files/upload_sessions/\(session)" }
    /// `POST /api/2.0/files/upload_sessions/{session}/commit`.
    public static func commit(_ session: String = "[^/]+") -> String {
        "/api/2.0/files/upload_sessions/\(session)/commit"
    }

    /// The session id in a part or commit path.
    public static func sessionID(in path: String) -> String? {
        let prefix = "/api/2.0/files/upload_sessions/"
        guard path.hasPrefix(prefix) else { return nil }
        return path.dropFirst(prefix.count).split(separator: "/").first.map(String.init)
    }
}
