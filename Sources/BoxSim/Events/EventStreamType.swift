/// The `stream_type` of `GET /2.0/events` (spec enum; default `all`).
enum EventStreamType: String, Sendable {
    case all, changes, sync
    case adminLogs = "admin_logs"
    case adminLogsStreaming = "admin_logs_streaming"

    /// nil or empty: `all`; an unknown value: 400 as for other bad query values.
    init(query: String?) throws {
        guard let query, !query.isEmpty else { self = .all; return }
        guard let value = EventStreamType(rawValue: query.lowercased()) else {
            throw BoxError.invalidParameter("stream_type", "Invalid value '\(query)'.")
        }
        self = value
    }

    var isAdmin: Bool { self == .adminLogs || self == .adminLogsStreaming }

    /// User event types that only the `all` stream carries (Box's stream types: `changes` holds events that may
    /// change the file tree; downloads and previews do not). boxsim records ITEM_DOWNLOAD.
    static let allOnlyTypes = ["ITEM_DOWNLOAD", "ITEM_PREVIEW"]

    /// What this user stream leaves out. `sync` is `changes` for synced folders; every boxsim folder reports
    /// `sync_state` "synced", so it is the same as `changes`.
    var excludedTypes: [String] { self == .all ? [] : Self.allOnlyTypes }

    /// The names enterprise (admin) streams use for boxsim's user event types.
    static let adminNames = [
        "ITEM_CREATE": "UPLOAD", "ITEM_UPLOAD": "UPLOAD", "ITEM_DOWNLOAD": "DOWNLOAD", "ITEM_RENAME": "RENAME",
        "ITEM_MOVE": "MOVE", "ITEM_TRASH": "DELETE", "ITEM_COPY": "COPY", "ITEM_UNDELETE_VIA_TRASH": "UNDELETE",
        "LOCK_CREATE": "LOCK", "LOCK_DESTROY": "UNLOCK", "ITEM_MAKE_CURRENT_VERSION": "FILE_VERSION_RESTORE",
        "COLLAB_ADD_COLLABORATOR": "COLLABORATION_INVITE", "COLLAB_REMOVE_COLLABORATOR": "COLLABORATION_REMOVE",
        "COLLAB_ROLE_CHANGE": "COLLABORATION_ROLE_CHANGE", "ITEM_SHARED_CREATE": "SHARE", "ITEM_SHARED_UNSHARE": "UNSHARE",
        "ITEM_SHARED_UPDATE": "ITEM_SHARED_UPDATE",
    ]
}
