extension BoxClient {
    /// Resolves `/a/b/c` from the root folder (`"0"`) by listing each folder on the way.
    /// Names match case-insensitively, as Box keeps names unique regardless of case; an exact
    /// match wins if both exist. `/` (or an empty path) is the root folder.
    public func item(atPath path: String) async throws -> BoxItem {
        let names = path.split(separator: "/").map(String.init).filter { $0 != "." }
        guard !names.isEmpty else { return try await folder(id: "0") }
        var current = BoxItem(id: "0", kind: .folder, name: "")
        for (index, name) in names.enumerated() {
            guard current.kind == .folder else {
                throw BoxAPIError(
                    kind: .notFound, status: 404, code: "not_found",
                    message: "\"/\(names[..<index].joined(separator: "/"))\" is not a folder")
            }
            let entries = try await folderItems(id: current.id)
            guard let match = entries.first(where: { $0.name == name })
                ?? entries.first(where: { $0.name.caseInsensitiveEquals(name) })
            else {
                throw BoxAPIError(
                    kind: .notFound, status: 404, code: "not_found",
                    message: "no item named \"\(name)\" in folder \(current.id)")
            }
            current = match
        }
        return current
    }
}

extension String {
    fileprivate func caseInsensitiveEquals(_ other: String) -> Bool {
        lowercased() == other.lowercased()
    }
}
