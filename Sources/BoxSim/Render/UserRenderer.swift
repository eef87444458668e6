/// Box's User JSON.
enum UserRenderer {
    static func mini(_ user: UserRecord) -> JSONValue {
        .object([("type", .string("user")), ("id", .string(String(user.id!))), ("name", .string(user.name)),
                 ("login", .string(user.login))])
    }

    static func render(_ user: UserRecord, spaceUsed: Int64, fields: FieldSelection) -> JSONValue {
        let names = fields.resolve(standard: ItemFields.userStandard, base: ["type", "id"], known: ItemFields.userKnown)
        return .object(names.compactMap { name in value(name, of: user, spaceUsed: spaceUsed).map { (name, $0) } })
    }

    private static func value(_ name: String, of user: UserRecord, spaceUsed: Int64) -> JSONValue? {
        switch name {
        case "type": return .string("user")
        case "id": return .string(String(user.id!))
        case "name": return .string(user.name)
        case "login": return .string(user.login)
        case "created_at": return Timestamp.json(user.createdAt)
        case "modified_at": return Timestamp.json(user.modifiedAt)
        case "language": return .string("en")
        case "timezone": return .string("America/Los_Angeles")
        case "space_amount": return .int(user.spaceAmount)
        case "space_used": return .int(spaceUsed)
        case "max_upload_size": return .int(user.maxUploadSize)
        case "status": return .string(user.status)
        case "job_title", "phone", "address": return .string("")
        case "avatar_url": return .string("https://app.box.com/api/avatar/large/\(user.id!)")
        case "notification_email": return .null
        case "role": return .string(user.kind == "admin" ? "admin" : "user")
        case "tracking_codes", "my_tags": return .array([])
        case "can_see_managed_users": return .bool(user.kind == "admin")
        case "is_sync_enabled": return .bool(true)
        case "is_external_collab_restricted", "is_exempt_from_device_limits",
             "is_exempt_from_login_verification": return .bool(false)
        case "is_platform_access_only": return .bool(user.kind == "app_user")
        case "enterprise":
            return .object([("type", .string("enterprise")), ("id", .string(String(user.enterpriseID ?? 1))),
                            ("name", .string("boxsim"))])
        case "hostname": return .string("https://app.box.com/")
        case "external_app_user_id", "can_manage_relay", "website", "reseller_representative_info": return .null
        case "is_password_reset_required", "has_custom_avatar", "is_subscribed_to_relay": return .bool(false)
        case "is_deactivated": return .bool(user.status == "inactive")
        case "deactivated_reason": return .string("")
        case "is_boxnotes_creation_enabled", "is_default_notes_shared_link_editable": return .bool(true)
        case "last_login_at": return Timestamp.json(user.modifiedAt)
        default: return nil
        }
    }
}
