import BoxAPI
import Foundation

/// `boxfs search`: Box's search within a folder of the mount, answered as paths below that folder. Results whose
/// `path_collection` does not pass through the mounted folder (shared with the user from elsewhere, or in a part
/// of the account the mount does not show) are left out.
extension FileSystem {
    func search(_ request: CommandRequest, folder: UInt64) async throws(FSError) -> CommandAnswer {
        let scope = try folderItem(folder)
        guard let text = request.query, !text.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw FSError(.invalidArgument, "search: give the words to look for")
        }
        let kind: BoxItem.Kind?
        switch request.type {
        case nil: kind = nil
        case "file"?: kind = .file
        case "folder"?: kind = .folder
        case let other?: throw FSError(.invalidArgument, "search: --type \(other): choose file or folder")
        }
        let query = BoxSearchQuery(text, ancestorFolderIDs: [scope.id], fileExtensions: request.extensions ?? [], type: kind)
        let results: [BoxItemWithPath]
        do {
            results = try await client.search(query)
        } catch {
            throw commandFailure(error, "searching")
        }
        let root = rootFolderID
        var paths = FolderPaths(root: root)
        let scopePath = await folderPath(scope.id, &paths)
        var found: [String] = []
        for result in results where result.item.kind != .webLink {
            guard let start = result.pathCollection.firstIndex(where: { $0.id == root }) else { continue }
            let parent = result.pathCollection[(start + 1)...].map(\.name).joined(separator: "/")
            if let relative = relativePath(parent, join: result.item.name, under: scopePath) { found.append(relative) }
        }
        var answer = CommandAnswer()
        answer.paths = found
        return answer
    }
}
