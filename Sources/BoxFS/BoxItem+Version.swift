import BoxAPI

extension BoxItem {
    /// What identifies this file's content: the file version id, else the SHA-1, else the etag.
    /// Cached bytes are keyed by it, so bytes of one version are never served for another.
    var contentVersion: String { fileVersionID ?? sha1 ?? etag ?? "0" }
}
