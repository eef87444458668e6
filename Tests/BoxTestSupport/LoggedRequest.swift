import Foundation

/// One line of boxsim's request log (`DIR/requests.jsonl`), as written once the response has been sent.
public struct LoggedRequest: Codable, Sendable, Equatable {
    /// 1, 2, 3, ... in the order the responses finished.
    public var seq: Int
    /// RFC 3339, when the request arrived.
    public var time: String
    public var method: String
    /// The path without the query, e.g. `/2.0/files/123/content`.
    public var path: String
    /// The raw query string without `?`, or nil.
    public var query: String?
    public var status: Int
    /// Body bytes actually handed to the connection.
    public var bytesSent: Int64
    /// Whether an Authorization header was present (never its value).
    public var authorization: Bool
    /// Whether a `BoxApi` (shared link) header was present (never its value).
    public var boxAPI: Bool?
    public var asUser: String?
    /// The Range header as sent, e.g. `bytes=0-4095`.
    public var range: String?
    /// The user the request acted for, if known.
    public var userID: String?
    /// Injected faults that changed the outcome, comma-separated (`cut_request_body`, `cut_response_body`,
    /// `cut_after_handling`, `stall`, `corrupt`, `error_status`), or nil.
    public var fault: String?

    enum CodingKeys: String, CodingKey {
        case seq, time, method, path, query, status, authorization, range, fault
        case bytesSent = "bytes_sent", asUser = "as_user", userID = "user_id", boxAPI = "boxapi"
    }

    /// The bytes the Range header asked for (`bytes=a-b`, both included), or nil without one of that form.
    public var byteRange: Range<Int64>? {
        guard let text = range, text.hasPrefix("bytes=") else { return nil }
        let bounds = text.dropFirst("bytes=".count).split(separator: "-").compactMap { Int64($0) }
        guard bounds.count == 2 else { return nil }
        return bounds[0]..<(bounds[1] + 1)
    }

    /// Parses a JSON-lines log; blank lines are skipped.
    public static func parseLog(_ data: Data) throws -> [LoggedRequest] {
        let decoder = JSONDecoder()
        return try data.split(separator: UInt8(ascii: "\n")).filter { !$0.isEmpty }.map {
            try decoder.decode(LoggedRequest.self, from: Data($0))
        }
    }
}
