import BoxAPI
import Foundation

/// `boxfs versions` and `boxfs restore`: a file's earlier versions, and promoting one.
extension FileSystem {
    func versions(_ request: CommandRequest, folder: UInt64) async throws(FSError) -> CommandAnswer {
        let item = try await commandTarget(request, folder: folder)
        var answer = CommandAnswer()
        answer.versions = try await earlierVersions(of: item).map(\.listed)
        return answer
    }

    /// Promotes earlier version N: Box makes a new current version with its content, which the mount shows
    /// before the command returns (its node, size and SHA-1 are Box's answer; the kernel drops the file's pages
    /// and attributes). A file with changes still uploading is refused: its upload, built on the version it
    /// started from, would then meet a newer one and become a conflicted copy.
    func restoreVersion(_ request: CommandRequest, folder: UInt64) async throws(FSError) -> CommandAnswer {
        let item = try await commandTarget(request, folder: folder)
        guard let number = request.version else { throw FSError(.invalidArgument, "restore: which version? (--version N)") }
        try refuseWhileLocal(item)
        let versions = try await earlierVersions(of: item)
        guard let chosen = versions.first(where: { $0.listed.number == number }) else {
            let known = versions.map { String($0.listed.number) }.joined(separator: ", ")
            throw FSError(.notFound, "\(item.name) has no earlier version \(number) "
                + (known.isEmpty ? "(it has no earlier versions)" : "(earlier versions: \(known))"))
        }
        try refuseWhileLocal(item)  // again: a writer may have opened it while the versions were listed
        let current: BoxItem
        do {
            try await client.promoteVersion(fileID: item.id, versionID: chosen.version.id)
            current = try await client.file(id: item.id)
        } catch {
            throw commandFailure(error, "restoring version \(number) of \(item.name)")
        }
        await showCommandResult(current)
        var answer = CommandAnswer()
        answer.restoredVersion = number
        return answer
    }

    /// A restore is refused while the file has a local copy at all (being written, uploading, or written and
    /// still held open): that copy is built on the version it started from, so the mount would go on showing
    /// it, and its next write would meet the restored version as a conflicted copy.
    private func refuseWhileLocal(_ item: BoxItem) throws(FSError) {
        try refuseWhileUploading(item, "restore a version")
        guard locals.withLock({ $0.file(itemID: item.id) != nil }) else { return }
        throw FSError(.busy, "\(item.name) is open with content written here; restore a version once it is closed")
    }

    /// The file's earlier versions (not the current one, nor versions in the version trash), oldest first,
    /// numbered as Box counts them (1 for the first upload), or by age when Box sends no numbers.
    private func earlierVersions(of item: BoxItem) async throws(FSError) -> [(version: BoxFileVersion, listed: CommandAnswer.Version)] {
        guard item.kind == .file else { throw FSError(.isDirectory, "\(item.name): folders have no versions") }
        let all: [BoxFileVersion]
        do {
            all = try await client.fileVersions(fileID: item.id)
        } catch {
            throw commandFailure(error, "listing the versions of \(item.name)")
        }
        let oldestFirst = all.sorted { ($0.createdAt ?? .distantPast, $0.id) < ($1.createdAt ?? .distantPast, $1.id) }
        let boxNumbers = oldestFirst.compactMap { $0.versionNumber.flatMap { Int($0) } }
        let numbered = boxNumbers.count == oldestFirst.count && Set(boxNumbers).count == boxNumbers.count
        return oldestFirst.enumerated().compactMap { position, version in
            guard version.trashedAt == nil else { return nil }
            let number = numbered ? boxNumbers[position] : position + 1
            let who = version.modifiedBy.map { $0.login ?? $0.name ?? "user \($0.id)" } ?? version.uploaderDisplayName
            return (version, CommandAnswer.Version(
                number: number, id: version.id, modifiedAt: version.createdAt ?? version.modifiedAt, modifiedBy: who,
                size: version.size, sha1: version.sha1))
        }
    }
}
