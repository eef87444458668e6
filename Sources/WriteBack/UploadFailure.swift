import BoxAPI

/// Why an upload attempt did not finish, as the lifecycle needs to know it. The uploader classifies
/// Box's answers into these (after checking whether a 409/412 was caused by its own earlier
/// attempt, which counts as success instead).
public enum UploadFailure: Sendable, Equatable {
    /// Worth retrying soon: 5xx, 429, a cut connection, a timeout, an expired upload session.
    case transient(retryAfter: Double?, message: String)
    /// The local content changed while it was being sent (Box's digest check failed).
    case contentChanged
    /// Box refused a target the entry has left while the attempt ran (renamed, moved or redirected here):
    /// the answer says nothing of the new target, where the content goes next.
    case targetMoved
    /// 412: the file changed on Box since the version the local content was based on.
    case changedOnBox
    /// 409: another item already has the name (and it is not this upload's own earlier result).
    case nameTaken
    /// 409 from a file of this mount's own making (another entry's upload, renamed, moved or deleted here since,
    /// whose follow-up has not reached Box yet): sent again once the folder's follow-ups are done.
    case nameHeldByOwnFile
    /// 409 from a file another entry of this mount made and still has journaled (its upload landed at this name
    /// and the file was renamed, moved or deleted here since): that entry's next attempt or its drop frees the
    /// name, however long it waits (a file open for writing, a backoff), so this waits for it too.
    case nameHeldByPendingUpload
    /// The file to add a version to is gone from Box.
    case targetGone
    /// The file to add a version to was removed by this mount as a leftover (what an upload made under a name since
    /// replaced): the entry's content belongs elsewhere, and the rename that made it a leftover retargets the entry.
    case targetRemovedHere
    /// The parent folder is gone or refuses the upload (a 404). Once a look at the folder confirms it gone, the
    /// content is kept in the recovery place (`UploadAttempt.keepAsideIfFolderGone`); otherwise the entry is parked.
    case parentGone(message: String)
    /// The account is out of space (403 `storage_limit_exceeded`).
    case storageFull
    /// The file exceeds the account's upload limit (403 `file_size_limit_exceeded`, 413).
    case fileTooLarge
    /// Anything else (no token, refused, unreadable staging file): retried rarely, never dropped.
    case other(String)

    /// For logs and `status`.
    public var summary: String {
        switch self {
        case .transient(_, let message): "temporary failure: \(message)"
        case .contentChanged: "the local file changed during the upload"
        case .targetMoved: "the file was renamed or moved here during the upload"
        case .changedOnBox: "the file changed on Box"
        case .nameTaken: "the name is taken on Box"
        case .nameHeldByOwnFile: "the name is still held by a file this mount uploaded and is moving away"
        case .nameHeldByPendingUpload: "the name is held by another upload of this mount's, which moves it away"
        case .targetGone: "the file was deleted on Box"
        case .targetRemovedHere: "the file it goes to was removed here as a leftover; its new place is on the way"
        case .parentGone(let message): "the folder is not available: \(message)"
        case .storageFull: "storage limit exceeded (the Box account is full)"
        case .fileTooLarge: "file size limit exceeded (larger than the account may upload)"
        case .other(let message): message
        }
    }

    /// Maps a Box client error; 409/412 must have been checked for "our own upload" already.
    public static func classify(_ error: BoxAPIError, forVersion: Bool) -> UploadFailure {
        if error.isStorageLimitExceeded { return .storageFull }
        if error.isFileSizeLimitExceeded { return .fileTooLarge }
        if error.isPreconditionFailed { return .changedOnBox }
        if error.isNameInUse { return .nameTaken }
        if error.code == "bad_digest" { return .contentChanged }
        if error.isTransient { return .transient(retryAfter: error.retryAfter, message: error.description) }
        if error.kind == .notFound {
            return forVersion ? .targetGone : .parentGone(message: error.description)
        }
        if error.code == "operation_blocked_temporary" || error.code == "name_temporarily_reserved" {
            return .transient(retryAfter: error.retryAfter, message: error.description)
        }
        return .other(error.description)
    }
}
