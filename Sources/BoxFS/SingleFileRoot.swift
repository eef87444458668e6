import BoxAPI

/// The folder shown at the mountpoint when the mounted item is one file (a shared link to a file):
/// it exists only in the mount, and its one entry is the file, refreshed like any listing.
enum SingleFileRoot {
    /// Not a Box id (Box ids are numeric), so it can never meet a real folder.
    static let folderID = "single-file-root"

    static func folder(for file: BoxItem) -> BoxItem {
        BoxItem(
            id: folderID, kind: .folder, name: "", createdAt: file.createdAt, modifiedAt: file.modifiedAt,
            contentCreatedAt: file.contentCreatedAt, contentModifiedAt: file.contentModifiedAt)
    }
}
