import Foundation
import Hummingbird

/// The Box host a URL that boxsim hands out points at. Box spreads its API over several hosts
/// (`api.box.com`, `upload.box.com`, `dl.boxcloud.com`, `app.box.com`); boxsim serves them all on one
/// listener, so by default every role has the base the client used, and `--public-url ROLE=URL` names one.
public enum PublicURLRole: String, Sendable, CaseIterable {
    /// `/2.0/...` (authenticated download URLs, the long-poll URL).
    case api
    /// `/api/2.0/...` uploads (upload sessions' `session_endpoints`, the preflight's `upload_url`).
    case upload
    /// `/dl/<token>` (the download redirect's `Location`).
    case dl
    /// `/s/<token>`, `/v/<name>`, `/shared/static/...` (shared links).
    case app
}

/// Public base URLs configured with `--public-url`: `ROLE=URL` for one role, or a bare `URL` for every role.
public struct PublicURLOverrides: Sendable, Equatable {
    public private(set) var bases: [PublicURLRole: String] = [:]

    public init() {}

    /// Parses one `--public-url` value; the error is a one-line message naming what is wrong.
    public mutating func add(_ option: String) throws(PublicURLError) {
        var roles = PublicURLRole.allCases
        var url = option
        if let equals = option.firstIndex(of: "="), !option[..<equals].contains(":") {
            let name = String(option[..<equals])
            guard let role = PublicURLRole(rawValue: name.lowercased()) else {
                throw PublicURLError("unknown role '\(name)' in --public-url \(option) (use api, upload, dl or app)")
            }
            roles = [role]
            url = String(option[option.index(after: equals)...])
        }
        guard let base = Self.normalised(url) else {
            throw PublicURLError("--public-url \(option): expected [api|upload|dl|app=]http(s)://host[:port][/path]")
        }
        for role in roles { bases[role] = base }
    }

    /// `http(s)://host[:port][/path]` without a trailing slash, query or fragment; nil when malformed.
    static func normalised(_ text: String) -> String? {
        let lower = text.lowercased()
        guard let schemeEnd = lower.range(of: "://"), ["http", "https"].contains(String(lower[..<schemeEnd.lowerBound]))
        else { return nil }
        let rest = text[schemeEnd.upperBound...]
        let host = rest.prefix { $0 != "/" }
        guard ForwardedHeaders.isHost(String(host)), !rest.contains(where: { $0 == "?" || $0 == "#" || $0 == " " })
        else { return nil }
        var base = String(text)
        while base.hasSuffix("/") { base.removeLast() }
        return base
    }
}

public struct PublicURLError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// The base URLs of one request, per role: the configured one, else what the client used to reach boxsim
/// (`ForwardedHeaders`).
struct PublicURLs: Sendable {
    var requestBase: String
    var overrides: PublicURLOverrides

    init(request: Request, overrides: PublicURLOverrides) {
        requestBase = ForwardedHeaders.base(of: request)
        self.overrides = overrides
    }

    init(requestBase: String) {
        self.requestBase = requestBase
        overrides = PublicURLOverrides()
    }

    func base(_ role: PublicURLRole) -> String { overrides.bases[role] ?? requestBase }
}
