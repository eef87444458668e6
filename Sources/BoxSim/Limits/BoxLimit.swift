/// One of Box's published per-user limits (developer.box.com, guides/api-calls/permissions-and-errors/rate-limits):
/// what it counts and over what window. Box's numbers are `boxDefault`.
public enum BoxLimit: String, Sendable, CaseIterable {
    /// Calls to the API host (`/2.0/...`, api.box.com), searches and download requests (`GET .../content`) included.
    case callsPerMinute = "calls_per_minute"
    /// File uploads: a simple upload (`POST .../files/content`, `.../files/{id}/content`) or the start of a
    /// chunked one (`POST .../files/upload_sessions`, `.../files/{id}/upload_sessions`), on either host.
    case uploadsPerMinute = "uploads_per_minute"
    /// `GET /2.0/search`, counted against both search limits (and as a call).
    case searchesPerSecond = "searches_per_second"
    case searchesPerMinute = "searches_per_minute"

    /// Box's published number.
    public var boxDefault: Int {
        switch self {
        case .callsPerMinute: 1000
        case .uploadsPerMinute: 240
        case .searchesPerSecond: 6
        case .searchesPerMinute: 60
        }
    }

    var window: Duration { self == .searchesPerSecond ? .seconds(1) : .seconds(60) }

    /// The limits a request counts against. Not counted: other upload-host requests (chunk parts, commits, session
    /// reads: `/api/2.0/...`), downloads from the dl host (`/dl/...`), OAuth (`/oauth2/...`), the long poll
    /// (`/subscribe`), shared-link pages and downloads (`/s/`, `/v/`, `/shared/static/`).
    static func counted(method: String, path: String) -> [BoxLimit] {
        var limits: [BoxLimit] = []
        if path.hasPrefix("/2.0/") { limits.append(.callsPerMinute) }
        let route: Substring
        if path.hasPrefix("/2.0/") {
            route = path.dropFirst("/2.0/".count)
        } else if path.hasPrefix("/api/2.0/") {
            route = path.dropFirst("/api/2.0/".count)
        } else {
            return limits
        }
        let parts = route.split(separator: "/", omittingEmptySubsequences: true)
        if method == "GET", parts == ["search"] { limits += [.searchesPerSecond, .searchesPerMinute] }
        if method == "POST", isUpload(parts) { limits.append(.uploadsPerMinute) }
        return limits
    }

    private static func isUpload(_ parts: [Substring]) -> Bool {
        guard parts.first == "files", let last = parts.last, ["content", "upload_sessions"].contains(last) else {
            return false
        }
        return parts.count == 2 || (parts.count == 3 && parts[1].allSatisfy(\.isNumber))
    }
}

/// The numbers of the `--box-limits` profile: Box's own unless changed (`--box-limit NAME=N`, the control API's
/// `box_limits` setting), so tests can use small ones.
public struct BoxLimitProfile: Sendable, Equatable {
    public private(set) var values: [BoxLimit: Int] = Dictionary(uniqueKeysWithValues: BoxLimit.allCases.map {
        ($0, $0.boxDefault)
    })

    public init() {}

    public subscript(limit: BoxLimit) -> Int { values[limit] ?? limit.boxDefault }

    /// Parses one `--box-limit NAME=N` value (N ≥ 1); the error is a one-line message.
    public mutating func set(_ option: String) throws(BoxLimitError) {
        let parts = option.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, let limit = BoxLimit(rawValue: parts[0]) else {
            throw BoxLimitError("--box-limit \(option): expected NAME=N with NAME one of "
                + BoxLimit.allCases.map(\.rawValue).joined(separator: ", "))
        }
        guard let number = Int(parts[1]), number >= 1 else {
            throw BoxLimitError("--box-limit \(option): N must be a whole number, 1 or more")
        }
        values[limit] = number
    }

    /// Changes the numbers named in a control-API object (`{"calls_per_minute": 5, ...}`); others keep theirs.
    mutating func apply(_ object: [String: Any]) throws {
        for (name, value) in object {
            guard let limit = BoxLimit(rawValue: name) else {
                throw BoxError.badRequest("box_limits: unknown limit \(name)")
            }
            guard let number = JSONBody.int64(value), number >= 1, number <= Int64(Int32.max) else {
                throw BoxError.badRequest("box_limits.\(name) must be a whole number, 1 or more")
            }
            values[limit] = Int(number)
        }
    }

    var json: JSONValue { .object(BoxLimit.allCases.map { ($0.rawValue, .int(Int64(self[$0]))) }) }
}

public struct BoxLimitError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
