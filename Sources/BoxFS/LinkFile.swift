import BoxAPI
import Foundation

/// How a symbolic link is kept on Box, which has none (`-o links`): as a file `NAME.boxlink` whose content is the
/// link's target, as rclone's `--links` keeps `NAME.rclonelink`. The mount shows such a file as the link `NAME`.
enum LinkFile {
    static let suffix = ".boxlink"
    /// Longest target kept as a link (PATH_MAX less its NUL); a longer `.boxlink` file is shown as the file it is.
    static let maximumTargetLength = 4095

    /// The Box name that keeps the link shown as `name`; nil when it would be longer than a name may be.
    static func storedName(for name: String) -> String? {
        let stored = name + suffix
        return stored.utf8.count <= 255 ? stored : nil
    }

    /// The name a link kept as `storedName` is shown by; nil when `storedName` keeps no link.
    static func shownName(of storedName: String) -> String? {
        guard storedName.hasSuffix(suffix), storedName.count > suffix.count else { return nil }
        return String(storedName.dropLast(suffix.count))
    }

    /// Whether `item` is a kept link: a file with the suffix, small enough to hold a target.
    static func keepsLink(_ item: BoxItem) -> Bool {
        item.kind == .file && shownName(of: item.name) != nil && item.size <= Int64(maximumTargetLength)
    }
}
