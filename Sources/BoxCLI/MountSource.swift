import Foundation

/// What to mount: the user's Box root, a folder path in it, or a shared link.
public enum MountSource: Equatable, Sendable {
    /// `box:` or `box:/path/in/box`; the path is "/" for the root.
    case path(String)
    /// A shared link, `https://app.box.com/s/TOKEN` or a vanity `https://HOST/v/NAME` (any host, also
    /// `http://` for boxsim), normalised to scheme, host, port and that path. Mounted read-only.
    case sharedLink(URL)

    public struct ParseError: Error, CustomStringConvertible {
        public let description: String
    }

    public init(parsing text: String) throws {
        if text.hasPrefix("https://") || text.hasPrefix("http://") {
            self = .sharedLink(try Self.sharedLinkURL(text))
            return
        }
        guard text.hasPrefix("box:") else {
            throw ParseError(description: "unknown source '\(text)': use box: (your Box root), box:/folder/path "
                + "or a shared link https://app.box.com/s/TOKEN")
        }
        var path = String(text.dropFirst(4))
        if path.isEmpty { path = "/" }
        guard path.hasPrefix("/") else {
            throw ParseError(description: "unknown source '\(text)': a Box path starts with /, as in box:/Documents")
        }
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        self = .path(path)
    }

    /// Accepts `<scheme>://<host>[:port]/s/<token>` and `.../v/<name>` (a trailing slash is fine).
    private static func sharedLinkURL(_ text: String) throws -> URL {
        let invalid = ParseError(description: "'\(text)' is not a Box shared link: use https://app.box.com/s/TOKEN "
            + "or https://HOST/v/NAME")
        guard let components = URLComponents(string: text), let scheme = components.scheme, let host = components.host,
              !host.isEmpty, components.query == nil, components.fragment == nil
        else { throw invalid }
        let parts = components.path.split(separator: "/").map(String.init)
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_"))
        guard parts.count == 2, ["s", "v"].contains(parts[0]), !parts[1].isEmpty,
              parts[1].unicodeScalars.allSatisfy({ $0.isASCII && allowed.contains($0) })
        else { throw invalid }
        let port = components.port.map { ":\($0)" } ?? ""
        guard let url = URL(string: "\(scheme.lowercased())://\(host)\(port)/\(parts[0])/\(parts[1])") else {
            throw invalid
        }
        return url
    }

    /// Whether the mount is read-only whatever the options say.
    var isReadOnly: Bool {
        if case .sharedLink = self { return true }
        return false
    }

    /// How the mount is named in /proc/mounts (`fsname`); commas would split mount options. A shared
    /// link's token is left out: /proc/mounts is world-readable and an open link is a credential.
    var fsname: String {
        switch self {
        case .path(let path): "box:" + (path == "/" ? "" : path).replacingOccurrences(of: ",", with: "_")
        case .sharedLink(let url): "box-shared-link:" + (url.host ?? "")
        }
    }
}
