/// A collaborator's view of other users' items: the items shared with them that their root lists
/// (`Store.sharedRoots`), and that root, which Box shows above each of them in place of the owner's folders.
struct SharedView: Sendable {
    let roots: Set<Int64>
    let root: ItemRecord

    /// nil for a user without a root folder (nothing is listed there).
    static func read(store: Store, viewer: UserRecord) async throws -> SharedView? {
        guard let userID = viewer.id, let rootID = viewer.rootFolderID, let root = try await store.item(id: rootID)
        else { return nil }
        return SharedView(roots: Set(try await store.sharedRoots(userID: userID)), root: root)
    }
}
