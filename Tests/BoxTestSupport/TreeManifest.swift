import Foundation

/// A tree described as relative path → SHA-1 of each file, and path + "/" → "" for each folder (empty ones
/// too), so a local tree, a tree seen through a mount and the tree Box holds compare with `==`.
public enum TreeManifest {
    /// The manifest of a local (or mounted) folder, read with `find` and `sha1sum`.
    public static func local(_ root: URL) throws -> [String: String] {
        let script = "cd \"$ROOT\" && find . -mindepth 1 -type d -printf '%P/\\n' && "
            + "find . -type f -print0 | xargs -0 -r sha1sum"
        let result = try Shell.bash(script, environment: ["ROOT": root.path], timeout: 600)
        guard result.succeeded else {
            throw BoxSimAPI.Failure(description: "manifest of \(root.path): \(result.stderr)")
        }
        var manifest: [String: String] = [:]
        for line in result.stdout.split(separator: "\n").map(String.init) {
            if line.hasSuffix("/") {
                manifest[line] = ""
            } else if line.count > 44, line.dropFirst(40).hasPrefix("  ./") {
                manifest[String(line.dropFirst(44))] = String(line.prefix(40))
            }
        }
        return manifest
    }

    /// The manifest of the Box folder at `path` (relative to the root), from Box's own SHA-1s.
    public static func box(_ api: BoxSimAPI, folder path: String) throws -> [String: String]? {
        guard let folder = try api.entry(at: path), folder.isFolder else { return nil }
        return try api.tree(folder.id).mapValues { $0.isFolder ? "" : ($0.sha1 ?? "?") }
    }
}
