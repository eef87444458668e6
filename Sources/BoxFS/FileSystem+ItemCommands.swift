import BoxAPI
import Foundation

/// `boxfs lock`, `unlock` and `link`: changes to one item, shown by the mount as soon as Box has them.
extension FileSystem {
    /// Locks the file for the mount's user. The mount's node takes the lock at once: the user's own lock does
    /// not stop this mount's writes (`isLockedForUs`), while others are refused by Box.
    func lock(_ request: CommandRequest, folder: UInt64) async throws(FSError) -> CommandAnswer {
        let locked = try await changeLock(request, folder: folder, "locking") { [client] id in
            try await client.lockFile(id: id, expiresAt: request.expiresAt, preventDownload: request.preventDownload ?? false)
        }
        var answer = CommandAnswer()
        answer.lock = locked.lock.map(CommandAnswer.Lock.init)
        return answer
    }

    func unlock(_ request: CommandRequest, folder: UInt64) async throws(FSError) -> CommandAnswer {
        _ = try await changeLock(request, folder: folder, "unlocking") { [client] id in try await client.unlockFile(id: id) }
        var answer = CommandAnswer()
        answer.unlocked = true
        return answer
    }

    /// Sets or removes the lock of the file a request names with `call`, and shows Box's answer at once.
    private func changeLock(
        _ request: CommandRequest, folder: UInt64, _ doing: String, _ call: (String) async throws -> BoxItem
    ) async throws(FSError) -> BoxItem {
        let item = try await commandTarget(request, folder: folder)
        guard item.kind == .file else { throw FSError(.isDirectory, "\(item.name): Box locks files only, not folders") }
        let changed: BoxItem
        do {
            changed = try await call(item.id)
        } catch {
            throw commandFailure(error, "\(doing) \(item.name)")
        }
        await showCommandResult(changed)
        return changed
    }

    /// Creates, updates or removes the item's shared link. Box gives the item a new etag, which the mount
    /// takes at once, so the next upload of the file is not first refused (412) for the old one. An upload
    /// already under way meets that 412 and goes again on the new etag (the content it was built on is
    /// unchanged), so a file with changes still uploading can be shared too.
    func link(_ request: CommandRequest, folder: UInt64) async throws(FSError) -> CommandAnswer {
        let item = try await commandTarget(request, folder: folder)
        var answer = CommandAnswer()
        do {
            if request.remove == true {
                try await client.removeSharedLink(item.kind, id: item.id)
                answer.linkRemoved = true
            } else {
                let settings = SharedLinkSettings(
                    access: request.access, password: request.password, unsharedAt: request.expiresAt,
                    canDownload: request.preventDownload.map { !$0 })
                answer.link = CommandAnswer.Link(try await client.setSharedLink(item.kind, id: item.id, settings))
            }
        } catch {
            throw commandFailure(error, request.remove == true ? "removing the link of \(item.name)" : "sharing \(item.name)")
        }
        if let current = try? await (item.kind == .folder ? client.folder(id: item.id) : client.file(id: item.id)) {
            await showCommandResult(current)
        }

        return answer
    }
}

extension CommandAnswer.Lock {
    init(_ lock: BoxItem.Lock) {
        self.init(createdBy: lock.createdByLogin ?? lock.createdByID, expiresAt: lock.expiresAt,
                  isDownloadPrevented: lock.isDownloadPrevented)
    }
}

extension CommandAnswer.Link {
    init(_ link: SharedLink) {
        self.init(url: link.url, downloadURL: link.downloadURL, access: link.access,
                  isPasswordEnabled: link.isPasswordEnabled, unsharedAt: link.unsharedAt, canDownload: link.canDownload)
    }
}
