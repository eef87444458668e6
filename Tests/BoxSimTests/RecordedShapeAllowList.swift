/// Where boxsim's answers knowingly differ in shape from Box's recordings, each with the reason. Everything else
/// that differs is a boxsim bug (real Box wins). A path matches a difference at that path or ending in it
/// (`shared_link.permissions.can_edit` also matches `entries[file].shared_link.permissions.can_edit`).
enum RecordedShapeAllowList {
    struct Entry: Hashable {
        var recordings: Set<String>
        var path: String
        var reason: String

        func matches(_ difference: JSONShape.Difference, in recording: String) -> Bool {
            recordings.contains(recording)
                && (difference.path == path || difference.path.hasSuffix("." + path))
        }
    }

    static func entry(for difference: JSONShape.Difference, in recording: String) -> Entry? {
        entries.first { $0.matches(difference, in: recording) }
    }

    /// Recordings with no boxsim counterpart, and why.
    static let notCompared: [String: String] = [
        "Files/FullFile_MissingRequiredField.json": "deliberately broken (a decoder must reject it), not an answer",
        "Files/FullFile_ValueFormatMismatch.json": "deliberately broken (a decoder must reject it), not an answer",
        "Files/UnlockFile.json": "the recording of an unlock still shows a lock object (a fixture copied from "
            + "LockFile.json); boxsim answers `\"lock\": null` after `{\"lock\": null}`, as Box documents",
        "Users/GetUserInfo.json": "GET /users/{id} is not implemented in boxsim (the same User shape is compared "
            + "through GET /users/me, Users/GetCurrentUserInfo.json)",
    ]

    private static let oldFolders: Set = ["Folders/CreateFolder.json", "Folders/GetFolderInfo.json",
                                          "Folders/UpdateFolder.json", "Folders/CopyFolder.json"]
    private static let oldFiles: Set = ["Files/GetFileInfo.json", "Files/UpdateFileInfo.json", "Files/CopyFile.json"]
    private static let linksWithoutEffective: Set = [
        "Files/UploadFileVersion.json", "Files/GetFileInfo.json", "Files/GetFileSharedLink_PasswordNotEnabled.json",
        "Files/GetFileSharedLink.json", "Files/UpdateFileInfo.json", "Files/GetFileSharedLink_VanityNameEnabled.json",
        "Folders/GetFolderInfo.json", "Folders/GetFolderSharedLink_PasswordNotEnabled.json",
        "Folders/GetFolderSharedLink.json", "Folders/UpdateFolder.json", "Folders/GetFolderSharedLink_VanityNameEnabled.json",
    ]
    private static let linksWithoutCanEdit: Set = [
        "Files/UploadFileVersion.json", "Files/GetFileInfo.json", "Files/GetFileSharedLink_PasswordNotEnabled.json",
        "Files/UpdateFileInfo.json", "Files/GetFileSharedLink_VanityNameEnabled.json", "Files/FullFile.json",
        "Folders/GetFolderSharedLink_PasswordNotEnabled.json", "Folders/UpdateFolder.json",
        "Folders/GetFolderSharedLink_VanityNameEnabled.json", "Folders/FullFolder.json",
    ]
    private static let era = "in the spec's standard list and in Box's newer recordings "

    static let entries: [Entry] = [
        // Fields Box added after these (2012-era) recordings were made.
        Entry(recordings: oldFolders.union(oldFiles), path: "content_created_at",
              reason: era + "(Folders/FullFolder.json, Files/UploadFile.json)"),
        Entry(recordings: oldFolders.union(oldFiles), path: "content_modified_at",
              reason: era + "(Folders/FullFolder.json, Files/UploadFile.json)"),
        Entry(recordings: oldFolders.union(oldFiles), path: "trashed_at",
              reason: era + "(Folders/FullFolder.json, Files/UploadFile.json)"),
        Entry(recordings: oldFolders.union(oldFiles), path: "purged_at",
              reason: era + "(Folders/FullFolder.json, Files/UploadFile.json)"),
        Entry(recordings: ["Files/UploadFile.json", "Files/UploadFileVersion.json", "Files/CopyFile.json",
                           "Folders/GetFolderInfo.json", "Folders/UpdateFolder.json", "Folders/CopyFolder.json",
                           "Folders/GetFolderItems.json"], path: "file_version",
              reason: era + "(Files/ChunkedUploadSessionCommit.json, Folders/GetFolderItemsOffsetIterator2.json)"),
        Entry(recordings: ["Folders/GetFolderItems.json"], path: "entries[file].sha1",
              reason: era + "of listings (Folders/GetFolderItemsOffsetIterator2.json)"),
        Entry(recordings: ["Users/GetCurrentUserInfo.json"], path: "timezone",
              reason: era + "(Users/GetUserInfo.json, the same User answer)"),
        Entry(recordings: ["Users/GetCurrentUserInfo.json"], path: "notification_email",
              reason: "in the spec's standard User list; this old recording predates it"),
        Entry(recordings: linksWithoutEffective, path: "shared_link.effective_access",
              reason: "required by the spec's shared link and in Box's newer Files/FullFile.json, Folders/FullFolder.json"),
        Entry(recordings: linksWithoutEffective, path: "shared_link.effective_permission",
              reason: "required by the spec's shared link and in Box's newer Files/FullFile.json, Folders/FullFolder.json"),
        Entry(recordings: linksWithoutCanEdit, path: "shared_link.permissions.can_edit",
              reason: "Box's recordings disagree; Files/GetFileSharedLink.json and Folders/GetFolderInfo.json have it, "
                  + "as the spec's shared-link permissions do"),
        Entry(recordings: ["Files/SharedLinkPermissions.json"], path: "can_edit",
              reason: "as shared_link.permissions.can_edit (Files/GetFileSharedLink.json has it)"),
        Entry(recordings: ["Folders/CreateFolder.json", "Folders/CopyFolder.json"],
              path: "is_collaboration_restricted_to_enterprise",
              reason: "Box's GET and PUT answers have it (Folders/GetFolderInfo.json, UpdateFolder.json); boxsim answers "
                  + "one standard folder everywhere"),
        Entry(recordings: ["Files/GetFileSharedLink_PasswordNotEnabled.json", "Files/GetFileSharedLink.json",
                           "Files/GetFileSharedLink_VanityNameEnabled.json"], path: "etag",
              reason: "fields= answers carry the base set type, id, etag (Box's request-extra-fields guide; "
                  + "Files/RemoveFileSharedLink.json and the folder link recordings have etag)"),
        Entry(recordings: ["Files/ChunkedUploadSessionNewFileVersion.json"], path: "session_endpoints.log_event",
              reason: "Box's recordings disagree: ChunkedUploadSessionNewFile.json and GetSession.json list log_event"),
        Entry(recordings: ["PagingIterator/MarkerBasedPagingWithEmptyNext.json"], path: "next_marker",
              reason: "Box ends marker paging with \"\" or null (MarkerBasedPagingWithNullNext.json); boxsim answers null"),
        Entry(recordings: ["Folders/CopyFolder.json"], path: "path_collection.entries[folder].etag",
              reason: "Box's sample is inconsistent: its parent (etag \"1\") is missing from its path_collection (root "
                  + "only); boxsim copies into a subfolder, as the parent shows, so the path has an etag too"),
        Entry(recordings: ["Folders/CopyFolder.json"], path: "path_collection.entries[folder].sequence_id",
              reason: "as path_collection.entries[folder].etag"),
        // State the recordings were made in that boxsim does not have.
        Entry(recordings: oldFolders.union(["Folders/FullFolder.json"]), path: "folder_upload_email",
              reason: "boxsim has no upload-by-email; Box answers null then (spec: not null only when enabled)"),
        Entry(recordings: ["Folders/CreateFolder.json", "Files/CopyFile.json", "Folders/CopyFolder.json"],
              path: "shared_link",
              reason: "a new folder or a copy has no shared link in boxsim; Box's samples show one"),
        Entry(recordings: ["Files/UpdateFileInfo.json"], path: "disposition_at",
              reason: "a retention-policy field; boxsim has no retention (with fields= it answers null)"),
        Entry(recordings: ["Files/FullFile.json"], path: "disposition_at",
              reason: "boxsim has no retention policies, so no disposition time (null)"),
        Entry(recordings: ["Files/FullFile.json", "Folders/FullFolder.json"], path: "classification",
              reason: "boxsim has no classifications (null)"),
        Entry(recordings: ["Files/FullFile.json"], path: "lock", reason: "locks are not implemented (null: unlocked)"),
        Entry(recordings: ["Files/FullFile.json"], path: "expiring_embed_link", reason: "previews are not implemented"),
        Entry(recordings: ["Files/FullFile.json"], path: "representations", reason: "previews are not implemented"),
        Entry(recordings: ["Files/FullFile.json"], path: "download_url",
              reason: "not in the spec; boxsim's download URL is the 302 of GET /files/{id}/content"),
        Entry(recordings: ["Folders/GetFolderItemsOffsetIterator1.json", "PagingIterator/OffsetBasedPagingWithMoreItems.json"],
              path: "entries[web_link]", reason: "boxsim has no web links"),
    ]
}
