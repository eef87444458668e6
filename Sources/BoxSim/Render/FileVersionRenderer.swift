/// Box's FileVersion--Full JSON. `trashed_by` and `restored_by` are User--Mini objects in the spec (not
/// nullable), so they are written only when set; `purged_at` is always null (boxsim never purges).
struct FileVersionRenderer: Sendable {
    let store: Store

    static let standard = ["type", "id", "sha1", "name", "size", "created_at", "modified_at", "modified_by",
                           "trashed_at", "trashed_by", "restored_at", "restored_by", "purged_at",
                           "uploader_display_name", "version_number"]

    /// `file` names the version (Box keeps no per-version name in boxsim: the file's current name).
    func render(_ version: FileVersionRecord, of file: ItemRecord, fields: FieldSelection) async throws -> JSONValue {
        let names = fields.resolve(standard: Self.standard, base: ["type", "id"], known: Self.standard)
        var pairs: [(String, JSONValue)] = []
        for name in names {
            if let value = try await value(name, of: version, file: file) { pairs.append((name, value)) }
        }
        return .object(pairs)
    }

    private func value(_ name: String, of version: FileVersionRecord, file: ItemRecord) async throws -> JSONValue? {
        switch name {
        case "type": return .string("file_version")
        case "id": return .string(String(version.id!))
        case "sha1": return .string(version.sha1)
        case "name": return .string(file.name)
        case "size": return .int(version.size)
        case "created_at", "modified_at": return Timestamp.json(version.createdAt)
        case "modified_by": return try await user(version.modifiedBy)
        case "trashed_at": return Timestamp.json(version.trashedAt)
        case "trashed_by": return try await version.trashedBy.asyncMap(user)
        case "restored_at": return Timestamp.json(version.restoredAt)
        case "restored_by": return try await version.restoredBy.asyncMap(user)
        case "purged_at": return .null
        case "uploader_display_name":
            guard let uploader = try await store.user(id: version.modifiedBy) else { return nil }
            return .string(uploader.name)
        case "version_number":
            return .string(String(try await store.versionNumber(version.id!, fileID: version.fileID)))
        default: return nil
        }
    }

    private func user(_ id: Int64) async throws -> JSONValue? {
        try await store.user(id: id).map(UserRenderer.mini)
    }
}

extension Optional {
    /// `map` with an async transform that may itself give nil.
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T?) async rethrows -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
