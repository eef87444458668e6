/// What to mount: the user's Box root, a folder path in it, or (later) a shared link.
public enum MountSource: Equatable, Sendable {
    /// `box:` or `box:/path/in/box`; the path is "/" for the root.
    case path(String)

    public struct ParseError: Error, CustomStringConvertible {
        public let description: String
    }

    public init(parsing text: String) throws {
        guard text.hasPrefix("box:") else {
            throw ParseError(description: "unknown source '\(text)': use box: (your Box root) or box:/folder/path")
        }
        var path = String(text.dropFirst(4))
        if path.isEmpty { path = "/" }
        guard path.hasPrefix("/") else {
            throw ParseError(description: "unknown source '\(text)': a Box path starts with /, as in box:/Documents")
        }
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        self = .path(path)
    }

    /// How the mount is named in /proc/mounts (`fsname`); commas would split mount options.
    var fsname: String {
        switch self {
        case .path(let path): "box:" + (path == "/" ? "" : path).replacingOccurrences(of: ",", with: "_")
        }
    }
}
