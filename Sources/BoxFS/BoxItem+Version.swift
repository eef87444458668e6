import BoxAPI

extension BoxItem {
    /// What identifies this file's content: the file version id (digits, which downloads ask Box for by that id),
    /// else the SHA-1, else the etag (each with a prefix, so it is never taken for a version id).
    /// Cached bytes are keyed by it, so bytes of one version are never served for another.
    var contentVersion: String { fileVersionID ?? sha1.map { "sha1:" + $0 } ?? etag.map { "etag:" + $0 } ?? "none" }
}
