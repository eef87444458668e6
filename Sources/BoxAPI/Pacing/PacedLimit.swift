/// One of Box's published per-user limits that boxfs paces itself under (developer.box.com,
/// guides/api-calls/permissions-and-errors/rate-limits), counted as Box counts it (and boxsim's
/// `--box-limits`, docs/BOXSIM.md): API calls, uploads, searches. Downloads from the pre-signed
/// download host, the long poll and OAuth are not API calls and count against none.
public enum PacedLimit: String, Sendable, CaseIterable, Hashable {
    /// Every authorized request to the API host (`<apiBase>/2.0/...`), searches and content calls included.
    case callsPerMinute = "calls_per_minute"
    /// A simple upload or the start of a chunked one (`POST .../files/content`, `.../files/{id}/content`,
    /// `.../files/upload_sessions`, `.../files/{id}/upload_sessions`), on either host.
    case uploadsPerMinute = "uploads_per_minute"
    /// `GET /2.0/search`, against both search limits (and as a call).
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

    /// Box's window, in seconds.
    public var window: Double { self == .searchesPerSecond ? 1 : 60 }

    /// What a spent token waits beyond the window before it comes back: a request is counted where it
    /// arrives, which may be later than when its token was taken (a slow connection, a TLS handshake), so
    /// two requests a window apart here may land less than a window apart at Box.
    public var margin: Double { self == .searchesPerSecond ? 0.25 : 1 }

    /// The noun `boxfs status` uses: "12 calls waiting for Box's rate limit (1,000 a minute)".
    public var noun: String {
        switch self {
        case .callsPerMinute: "calls"
        case .uploadsPerMinute: "uploads"
        case .searchesPerSecond, .searchesPerMinute: "searches"
        }
    }

    /// "a minute" or "a second".
    public var per: String { self == .searchesPerSecond ? "a second" : "a minute" }

    /// The limits a request counts against: none for an unauthorized one (a pre-signed download, a
    /// shared-link page) or one to neither host's `/2.0/` (the long poll's realtime server, OAuth).
    static func counted(method: String, url: String, endpoints: BoxEndpoints) -> [PacedLimit] {
        var limits: [PacedLimit] = []
        let route: Substring
        if url.hasPrefix(endpoints.apiBase + "/2.0/") {
            limits.append(.callsPerMinute)
            route = url.dropFirst(endpoints.apiBase.count + "/2.0/".count)
        } else if url.hasPrefix(endpoints.uploadBase + "/2.0/") {
            route = url.dropFirst(endpoints.uploadBase.count + "/2.0/".count)
        } else {
            return limits
        }
        let path = route.prefix { $0 != "?" && $0 != "#" }
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        if method == "GET", parts == ["search"] { limits += [.searchesPerSecond, .searchesPerMinute] }
        if method == "POST", isUpload(parts) { limits.append(.uploadsPerMinute) }
        return limits
    }

    private static func isUpload(_ parts: [Substring]) -> Bool {
        guard parts.first == "files", let last = parts.last, last == "content" || last == "upload_sessions" else {
            return false
        }
        return parts.count == 2 || (parts.count == 3 && parts[1].allSatisfy(\.isNumber))
    }
}

/// The numbers boxfs paces itself under: Box's unless a mount option changes one; 0 leaves that limit unpaced.
public struct PacingLimits: Sendable, Equatable {
    public private(set) var values: [PacedLimit: Int] = Dictionary(
        uniqueKeysWithValues: PacedLimit.allCases.map { ($0, $0.boxDefault) })

    public init() {}

    /// Every limit unpaced.
    public static var none: PacingLimits {
        var limits = PacingLimits()
        for limit in PacedLimit.allCases { limits[limit] = 0 }
        return limits
    }

    public subscript(limit: PacedLimit) -> Int {
        get { values[limit] ?? 0 }
        set { values[limit] = max(0, newValue) }
    }

    public var isEmpty: Bool { values.values.allSatisfy { $0 == 0 } }
}
