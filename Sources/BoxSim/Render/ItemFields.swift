/// Box's field lists for files and folders (spec schemas File/Folder and their --Mini/--Full variants).
enum ItemFields {
    static let folderMini = ["type", "id", "sequence_id", "etag", "name"]
    static let fileMini = ["type", "id", "file_version", "sequence_id", "etag", "sha1", "name"]
    /// Always present when `fields=` is given.
    static let base = ["type", "id", "etag"]

    /// As Box's recorded GET and PUT answers (Folders/GetFolderInfo.json, UpdateFolder.json) and the spec's list.
    static let folderStandard = folderMini + [
        "created_at", "modified_at", "description", "is_collaboration_restricted_to_enterprise", "size", "path_collection", "created_by", "modified_by",
        "trashed_at", "purged_at", "content_created_at", "content_modified_at", "owned_by", "shared_link",
        "folder_upload_email", "parent", "item_status", "item_collection",
    ]
    static let folderKnown = folderStandard + [
        "sync_state", "has_collaborations", "permissions", "tags", "can_non_owners_invite", "is_externally_owned",
        "is_collaboration_restricted_to_enterprise", "allowed_shared_link_access_levels", "allowed_invitee_roles",
        "can_non_owners_view_collaborators", "is_accessible_via_shared_link", "is_associated_with_app_item",
    ] + recordedExtras + ["can_widget_email_upload_overwrite_files", "file_count"]

    /// Fields Box's full recordings (Files/FullFile.json, Folders/FullFolder.json) carry beyond the spec's lists,
    /// or that boxsim answers with their "none" value (no retention, expiry, watermark, classification).
    static let recordedExtras = [
        "allowed_shared_link_permissions", "shared_link_options", "default_invitee_role",
        "is_hide_collaborators_enabled", "watermark_info", "expires_at", "collections", "classification",
    ]

    static let fileStandard = fileMini + [
        "description", "size", "path_collection", "created_at", "modified_at", "trashed_at", "purged_at",
        "content_created_at", "content_modified_at", "created_by", "modified_by", "owned_by", "shared_link",
        "parent", "item_status",
    ]
    static let fileKnown = fileStandard + [
        "version_number", "comment_count", "permissions", "tags", "lock", "extension", "is_package",
        "has_collaborations", "is_externally_owned", "allowed_invitee_roles", "is_accessible_via_shared_link",
        "uploader_display_name", "is_associated_with_app_item",
    ] + recordedExtras + ["allowed_shared_link_access_levels", "disposition_at", "authenticated_download_url"]

    static let userStandard = [
        "type", "id", "name", "login", "created_at", "modified_at", "language", "timezone", "space_amount",
        "space_used", "max_upload_size", "status", "job_title", "phone", "address", "avatar_url",
        "notification_email",
    ]
    static let userKnown = userStandard + [
        "role", "tracking_codes", "can_see_managed_users", "is_sync_enabled", "is_external_collab_restricted",
        "is_exempt_from_device_limits", "is_exempt_from_login_verification", "enterprise", "my_tags", "hostname",
        "is_platform_access_only", "external_app_user_id",
        // In Box's recorded Users/FullUser.json, not in the spec.
        "can_manage_relay", "website", "reseller_representative_info", "is_password_reset_required", "is_deactivated",
        "deactivated_reason", "has_custom_avatar", "is_boxnotes_creation_enabled",
        "is_default_notes_shared_link_editable", "is_subscribed_to_relay", "last_login_at",
    ]
}
