import BoxAPI
import Foundation

/// The command channel (`CommandFile`): opening, writing the request, reading the answer, and running it.
/// Each operation lives with its kind (`FileSystem+ItemCommands`, `+TrashCommands`, `+SearchCommand`).
extension FileSystem {
    /// The attributes of `<folder>/.boxfs\command`, nil for any other name: read-write for the mount's owner
    /// only (the kernel enforces it, `default_permissions`), size 0 (read with direct I/O).
    /// A query name (`CommandQueries`) is counted as one more kernel reference to its inode: read-only for the
    /// owner.
    func commandFileAttributes(parent: UInt64, name: String) -> FileAttributes? {
        guard name.hasPrefix(CommandFile.name), tree.withLock({ $0.node(parent)?.item.kind == .folder }) else { return nil }
        if name == CommandFile.name { return commandFileAttributes(inode: CommandFile.inode(folder: parent), permissions: 0o600) }
        guard let request = CommandQueries.request(inName: name) else { return nil }
        let inode = commandQueries.withLock { $0.lookup(folder: parent, name: name, request: request) }
        return commandFileAttributes(inode: inode, permissions: 0o400)
    }

    func commandFileAttributes(inode: UInt64, permissions: UInt16) -> FileAttributes {
        var attributes = statusFileAttributes(inode: inode)
        attributes.permissions = permissions
        return attributes
    }

    /// The attributes of a query name's inode, nil for any other inode.
    func commandQueryAttributes(_ inode: UInt64) -> FileAttributes? {
        guard commandQueries.withLock({ $0.query(inode) }) != nil else { return nil }
        return commandFileAttributes(inode: inode, permissions: 0o400)
    }

    /// Opens a query name: read-only; its request runs at the first read, again at each open.
    func openCommandQuery(_ inode: UInt64, mode: OpenMode) throws(FSError) -> OpenedFile {
        guard let query = commandQueries.withLock({ $0.query(inode) }) else { throw .notFound("command query") }
        guard mode == .readOnly else { throw FSError(.accessDenied, "a command query is read-only") }
        return openedExchange(CommandExchange(folder: query.folder, request: query.request))
    }

    /// Opens a command file: read-write, never truncated; nothing runs until the first read.
    func openCommandFile(folder: UInt64, mode: OpenMode) throws(FSError) -> OpenedFile {
        guard mode == .readWrite else { throw FSError(.invalidArgument, "\(CommandFile.name) is opened read-write") }
        _ = try folderItem(folder)
        return openedExchange(CommandExchange(folder: folder))
    }

    private func openedExchange(_ exchange: CommandExchange) -> OpenedFile {
        var opened = OpenedFile(handle: handles.withLock { $0.open(.command(exchange)) }, keepCache: false)
        opened.directIO = true
        return opened
    }

    /// Reads the answer of a command file's request (running it at the first read).
    func readCommandAnswer(_ exchange: CommandExchange, offset: Int64, length: Int) async -> Data {
        let answer = await exchange.answer { [self] request in
            let answer = await runCommand(request, folder: exchange.folder)
            return (try? CommandFile.encoder.encode(answer)) ?? Data("{\"error\":\"the answer could not be encoded\"}".utf8)
        }
        guard offset >= 0, offset < Int64(answer.count) else { return Data() }
        let start = answer.startIndex + Int(offset)
        return answer[start..<min(answer.endIndex, start + length)]
    }

    /// Decodes a request and runs it; every failure becomes the answer's one-line `error` (and a log line
    /// that names the operation and item, never the request's other members).
    func runCommand(_ bytes: Data, folder: UInt64) async -> CommandAnswer {
        let request: CommandRequest
        do {
            request = try CommandFile.decoder.decode(CommandRequest.self, from: bytes)
        } catch {
            return .failure("the mount did not understand the command (is boxfs newer than the mount? remount it)")
        }
        do throws(FSError) {
            guard writeBack != nil || !request.op.changesBox else {
                throw FSError.readOnly("\(request.op.rawValue) on a read-only mount")
            }
            if singleFileID != nil { throw FSError(.notSupported, "commands are not available on a mount of a single file") }
            let answer = try await perform(request, folder: folder)
            // `boxfs pinned` is asked in loops (waiting for a pin); it changes nothing.
            if request.op != .pinned { logger.info("command \(request.op.rawValue) on \(request.name ?? ".") done") }
            return answer
        } catch {
            logger.warning("command \(request.op.rawValue) on \(request.name ?? "."): \(error.message)")
            return .failure(error.message)
        }
    }

    private func perform(_ request: CommandRequest, folder: UInt64) async throws(FSError) -> CommandAnswer {
        switch request.op {
        case .lock: return try await lock(request, folder: folder)
        case .unlock: return try await unlock(request, folder: folder)
        case .link: return try await link(request, folder: folder)
        case .versions: return try await versions(request, folder: folder)
        case .restore: return try await restoreVersion(request, folder: folder)
        case .trashList: return try await trashList(request, folder: folder)
        case .trashRestore: return try await trashRestore(request, folder: folder)
        case .trashPurge: return try await trashPurge(request, folder: folder)
        case .search: return try await search(request, folder: folder)
        case .pin: return try await pin(request, folder: folder)
        case .unpin: return try await unpin(request, folder: folder)
        case .pinned: return pinned()
        }
    }

    /// The item a request names in `folder` (the folder itself without a name), as the mount shows it.
    func commandTarget(_ request: CommandRequest, folder: UInt64) async throws(FSError) -> BoxItem {
        guard let name = request.name, !name.isEmpty else { return try folderItem(folder) }
        let (_, item) = try await child(name, in: folder)
        switch NodeID(item) {
        case .box: return item
        case .local, .detached:
            throw FSError(.tryAgain, "\(name) is not on Box yet (its upload is pending); try again once it is uploaded")
        }
    }

    /// The one line for a Box call that failed while doing `what`: Box's status, code and reason when it
    /// answered, else why it could not be reached (after the client's retries).
    func commandFailure(_ error: any Error, _ what: String) -> FSError {
        guard let api = error as? BoxAPIError, api.status != 0 else { return FSError(error, context: what) }
        let mapped = FSError(error, context: what)
        var reason = "\(api.status)"
        if let code = api.code { reason += " \(code)" }
        if let message = api.message, !message.isEmpty { reason += ": \(message)" }
        return FSError(mapped.kind, "\(what): Box refused (\(reason))".oneLine)
    }

    /// Shows the item as Box answered it after a command at once: its node and its folder's cached listing take
    /// it, and the kernel drops the attributes (and, unless it has local content, the pages) it holds for the
    /// item and its folder, and forgets the name (a restored item the kernel thought gone). Returns once the
    /// kernel has been told, so a `cat` right after the command sees the new state.
    func showCommandResult(_ item: BoxItem) async {
        guard let parentID = item.parentID else { return }
        let (inode, parentInode) = tree.withLock { tree in
            tree.upsert(item, inFolder: parentID)
            return (tree.inode(forItemID: item.id), tree.inode(forItemID: parentID))
        }
        var effect = RemoteChangeEffect()
        if let inode {
            effect.inodes.append(inode)
            openedVersions.withLock { $0[inode] = nil }
        }
        if let parentInode {
            effect.inodes.append(parentInode)
            effect.entries.append((parentInode, item.name))
        }
        let hasLocalContent = locals.withLock { $0.file(itemID: item.id) != nil }
        sendToKernel(effect, keepingPagesOf: hasLocalContent ? Set(inode.map { [$0] } ?? []) : [])
        await invalidationsSent()
    }

    /// Whether the file has content written here that Box does not have yet (being written or uploading).
    func hasLocalChanges(_ item: BoxItem) -> Bool {
        locals.withLock { files in
            guard let file = files.file(itemID: item.id) else { return false }
            return file.writers > 0 || file.entryID != nil
        }
    }

    /// Refuses a change that would race the upload of local changes (a version promoted or a link's etag
    /// bumped under an upload built on the old version would turn the upload into a conflicted copy).
    func refuseWhileUploading(_ item: BoxItem, _ what: String) throws(FSError) {
        guard hasLocalChanges(item) else { return }
        throw FSError(.busy, "\(item.name) has changes written here that are not on Box yet; \(what) once "
            + "`boxfs status` shows no upload for it")
    }
}
