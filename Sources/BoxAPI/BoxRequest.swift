import CurlHTTP

/// One Box API call before authorization is applied: what to send and how it may be retried.
struct BoxRequest: Sendable {
    var method: HTTPMethod
    var url: String
    var headers: [(String, String)] = []
    var body: HTTPBody = .empty
    /// GET, HEAD and OPTIONS, plus steps known to be safe to repeat (a download).
    var isIdempotent: Bool
    /// Not idempotent, yet repeated after a 5xx or a lost answer like an idempotent request: the
    /// caller recognises the effect of its own earlier attempt in the repeat's error
    /// (`BoxAPIError.earlierAttemptMayHaveLanded`), e.g. a 404 to a repeated delete is success.
    var resolvesRepeats = false
    /// Statuses that count as an answer rather than an error (usually just 200).
    var acceptedStatuses: Set<Int> = [200]
    /// A 202 with `Retry-After` means "not ready yet, ask again" (downloads, upload commits).
    var retriesWhileAccepted = false
    /// Send the `Authorization` and `As-User` headers. False for pre-signed download URLs.
    var isAuthorized = true
    /// Where a successful response's body goes (downloads stream into a sink).
    var responseBody: HTTPResponseDestination = .memory
    /// Time limits of its own (a long poll); nil: the client's.
    var timeouts: HTTPTimeouts?
    /// What logs call an unauthorized request (default: a download location, itself a credential).
    var unauthorizedLogName = "<download location>"

    /// An API call answered in JSON (kept in memory, sent with the token, no range): asked for gzip, which cuts a
    /// listing page of 1,000 entries from 749 KB on the wire to 43 KB (boxsim). Never a download.
    var answersInJSON: Bool {
        guard isAuthorized, case .memory = responseBody else { return false }
        return !headers.contains { $0.0.lowercased() == "range" }
    }

    init(method: HTTPMethod, url: String) {
        self.method = method
        self.url = url
        switch method {
        case .get, .head, .options: isIdempotent = true
        default: isIdempotent = false
        }
    }

    /// `GET` of a URL, answered with 200.
    static func get(_ url: String) -> BoxRequest {
        BoxRequest(method: .get, url: url)
    }

    /// Method and path for logs and error messages: never the query (markers are harmless but long)
    /// and never the URL of a pre-signed download, which is itself a short-lived credential.
    var logDescription: String {
        guard isAuthorized else { return "\(method.rawValue) \(unauthorizedLogName)" }
        return "\(method.rawValue) \(BoxURL.path(of: url))"
    }
}

/// Building and picking apart request URLs.
enum BoxURL {
    /// `base` + `/` + percent-encoded path segments + encoded query.
    static func make(_ base: String, _ segments: [String], query: [(String, String)] = []) -> String {
        var url = base
        for segment in segments {
            url += "/" + encode(segment)
        }
        if !query.isEmpty {
            url += "?" + query.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&")
        }
        return url
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters, so ids, names and paging
    /// markers (base64 with `=`, `+`, `/`) survive intact in a path segment or a query value.
    static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    /// The path of an absolute URL, without scheme, host or query: `https://h/2.0/x?y` → `/2.0/x`.
    static func path(of url: String) -> String {
        var rest = Substring(url)
        if let scheme = rest.range(of: "://") {
            rest = rest[scheme.upperBound...]
            rest = rest.firstIndex(of: "/").map { rest[$0...] } ?? "/"
        }
        if let query = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            rest = rest[..<query]
        }
        return String(rest)
    }

    /// Resolves a `Location` header against the URL that sent it (absolute, host-relative or
    /// path-relative).
    static func resolve(_ location: String, against base: String) -> String {
        if location.contains("://") { return location }
        guard let schemeEnd = base.range(of: "://") else { return location }
        let afterScheme = base[schemeEnd.upperBound...]
        let hostEnd = afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex
        let origin = String(base[..<hostEnd])
        if location.hasPrefix("//") { return String(base[..<schemeEnd.lowerBound]) + ":" + location }
        if location.hasPrefix("/") { return origin + location }
        let basePath = path(of: base)
        let directory = basePath.lastIndex(of: "/").map { String(basePath[...$0]) } ?? "/"
        return origin + directory + location
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
