import Foundation

/// Where a Box-compatible server answers: the API host and the upload host.
///
/// Paths are appended to these bases as Box's SDKs do: API calls go to `<apiBase>/2.0/...`,
/// uploads to `<uploadBase>/2.0/...`.
public struct BoxEndpoints: Sendable, Equatable {
    /// For example `https://api.box.com` (no trailing slash, no `/2.0`).
    public var apiBase: String
    /// For example `https://upload.box.com/api`.
    public var uploadBase: String

    /// Real Box.
    public static let box = BoxEndpoints(apiBase: "https://api.box.com", uploadBase: "https://upload.box.com/api")

    public init(apiBase: String, uploadBase: String) {
        self.apiBase = Self.trimmingTrailingSlashes(apiBase)
        self.uploadBase = Self.trimmingTrailingSlashes(uploadBase)
    }

    /// Where people open items in a browser: Box's web app for Box's API, else the server's own base
    /// (a Box-compatible server such as boxsim plays app.box.com on the listener it serves the API on,
    /// as its shared links show). An item's page is `<webAppBase>/file/ID` or `/folder/ID`.
    public var webAppBase: String {
        guard let host = URL(string: apiBase)?.host?.lowercased() else { return apiBase }
        return host == "box.com" || host.hasSuffix(".box.com") ? "https://app.box.com" : apiBase
    }

    /// One server that serves both the API and uploads, such as boxsim:
    /// API at `<serverBase>/2.0/...`, uploads at `<serverBase>/api/2.0/...`.
    public init(serverBase: String) {
        let base = Self.trimmingTrailingSlashes(serverBase)
        self.init(apiBase: base, uploadBase: base + "/api")
    }

    private static func trimmingTrailingSlashes(_ url: String) -> String {
        var url = url
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }
}
