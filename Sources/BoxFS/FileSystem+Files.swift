import BoxAPI
import Foundation
import SystemCalls
import Transfers

/// How a file is being opened, as far as the core cares.
public enum OpenMode: Sendable {
    case readOnly
    case writeOnly
    case readWrite
}

/// An open file handle and whether the kernel may keep the pages it cached at an earlier open.
public struct OpenedFile: Sendable {
    public let handle: UInt64
    /// True when the file's Box version is the one seen at the previous open of this inode.
    public let keepCache: Bool
    /// Reads bypass the kernel's page cache and its idea of the file's size (the status file).
    public var directIO = false
}

extension FileSystem {
    /// Opens a file. Reading a file with no local content reads Box lazily; opening for writing
    /// makes a complete local copy first (nothing fetched with O_TRUNC).
    public func openFile(_ inode: UInt64, mode: OpenMode, truncate: Bool) async throws(FSError) -> OpenedFile {
        if let virtual = VirtualInode(inode) {
            return try await openVirtualFile(virtual, inode: inode, mode: mode, truncate: truncate)
        }
        let item = try fileItem(inode)
        if case .local = NodeID(item), locals.withLock({ $0.file(itemID: item.id) }) == nil {
            throw Self.standsForNoFile(item)  // uploaded under its Box id, or deleted: a stale inode
        }
        let writable = mode != .readOnly || truncate
        if !writable {
            prepareNextFiles(afterOpening: item, inode: inode)
            let opened = try await openForReading(inode, item: item)
            await sendFirst(inode)
            return opened
        }
        _ = try requireWriteBack(item.name)
        try refuseIfLocked(item)
        let number = try await openForWriting(item, empty: truncate)
        openedVersions.withLock { $0[inode] = nil }
        await sendFirst(inode)
        let handle = handles.withLock { $0.open(.local(number: number, writable: true)) }
        if truncate, item.size > 0 || locals.withLock({ $0.file(number)?.item.size ?? 0 }) > 0 {
            try await modify(number) { staging throws(FSError) in
                try staging.truncate(to: 0)
                return .exactly(0)
            }
        }
        return OpenedFile(handle: handle, keepCache: false)
    }

    /// A read-only handle: on the local copy while there is one, else on Box's current version.
    private func openForReading(_ inode: UInt64, item first: BoxItem) async throws(FSError) -> OpenedFile {
        if let opened = openLocalForReading(first) { return opened }
        // The local copy may have been let go since the first look at the node: its upload landed, which rebinds
        // the node to what Box now holds before the copy goes. The first look's item (for a new file, its made-up
        // id with the size it had when made) would read as an empty file (model seed 26187).
        let item = try fileItem(inode)
        if let opened = openLocalForReading(item) { return opened }
        guard case .box(let id) = NodeID(item) else { throw Self.standsForNoFile(item) }
        await waitForSeeding(of: id)
        let file = RemoteFile(id: id, version: item.contentVersion, size: max(item.size, 0), sha1: item.sha1)
        let previous = openedVersions.withLock { $0.updateValue(file.version, forKey: inode) }
        let reader = FileReader(file: file, store: store, logger: logger)
        let handle = handles.withLock { $0.open(.file(reader, inode: inode)) }
        // Pages of an unverified version (read in part, never checked whole) are dropped at each open, so a
        // whole read reaches the daemon and its SHA-1 check sees every byte (docs/SEMANTICS.md).
        return OpenedFile(handle: handle, keepCache: previous == file.version && store.isVerified(file))
    }

    /// A read-only handle on the local copy of `item`, if it has one.
    private func openLocalForReading(_ item: BoxItem) -> OpenedFile? {
        guard let number = attachHandle(toItemID: item.id) else { return nil }
        return OpenedFile(handle: handles.withLock { $0.open(.local(number: number, writable: false)) }, keepCache: false)
    }

    /// A node whose made-up id no local file has any more (its file was uploaded under its Box id, or deleted).
    static func standsForNoFile(_ item: BoxItem) -> FSError {
        FSError(.notFound, "\(item.name): its node's made-up id \(item.id) stands for no file")
    }

    /// Reads up to `length` bytes at `offset` (fewer only at the end of the file).
    public func read(handle: UInt64, offset: Int64, length: Int) async throws(FSError) -> Data {
        switch handles.withLock({ $0.handle(handle) }) {
        case .local(let number, _):
            guard let staging = locals.withLock({ $0.file(number)?.staging }) else { throw .badHandle }
            return try staging.read(offset: offset, length: length)
        case .command(let exchange):
            return await readCommandAnswer(exchange, offset: offset, length: length)
        case .watch(let subscription):
            return try await subscription.read(length: length)
        case .snapshot(let data):
            guard offset >= 0, offset < Int64(data.count) else { return Data() }
            let start = data.startIndex + Int(offset)
            return data[start..<min(data.endIndex, start + length)]
        case .pinned(let reader):
            return try await readFromBox(reader, offset: offset, length: length, what: "version \(reader.file.version) of file")
        case .file(let reader, let inode):
            if let staging = localContent(readBy: reader, openedOn: inode) { return try staging.read(offset: offset, length: length) }
            return try await readFromBox(reader, offset: offset, length: length, what: "file")
        default:
            throw .badHandle
        }
    }

    /// The local content a handle reading Box file `reader` from `inode` must read instead of Box: the file's, when
    /// it was written through another handle since this one opened and the inode still stands for it; the content
    /// the inode kept when it was unlinked while open. Not the content of another file renamed over it since: that
    /// content becomes the Box file's next version, but the open inode is the replaced file's (model seed
    /// 566940517, found in-process: `open f1`, `rename f0 -> f1`, `pread` read f0's bytes).
    private func localContent(readBy reader: FileReader, openedOn inode: UInt64) -> StagingFile? {
        let standsForFile = tree.withLock { $0.node(inode)?.itemID == reader.file.id }
        return locals.withLock { files in
            standsForFile ? files.file(itemID: reader.file.id)?.staging : files.unlinkedFile(inode: inode)?.staging
        }
    }

    /// Reads through the block cache from Box; a failure is logged, naming `what` and the file id.
    private func readFromBox(_ reader: FileReader, offset: Int64, length: Int, what: String) async throws(FSError) -> Data {
        do {
            return try await reader.read(offset: offset, length: length)
        } catch {
            let failure = FSError(error, context: "reading \(what) \(reader.file.id)")
            logger.error("\(failure)")
            throw failure
        }
    }

    /// Writes `data` at `offset` through a handle opened for writing; returns the bytes written.
    public func write(handle: UInt64, offset: Int64, data: Data) async throws(FSError) -> Int {
        let opened = handles.withLock { $0.handle(handle) }
        if case .command(let exchange)? = opened { return try exchange.write(data, offset: offset) }
        guard case .local(let number, true)? = opened else { throw .badHandle }
        let end = offset + Int64(data.count)
        try await checkSpace(number, growingTo: end)
        try await modify(number) { staging throws(FSError) in
            try withRoom(for: data.count) { () throws(FSError) in try staging.write(data, offset: offset) }
            return .atLeast(end)
        }
        return data.count
    }

    /// Makes written data durable on this machine (Box receives it after the last close).
    public func fsync(handle: UInt64) throws(FSError) {
        guard case .local(let number, _)? = handles.withLock({ $0.handle(handle) }) else { return }
        try locals.withLock { $0.file(number)?.staging }?.sync()
    }

    public func releaseFile(handle: UInt64) async {
        if case .watch(let subscription)? = handles.withLock({ $0.handle(handle) }) {
            handles.withLock { _ = $0.close(handle) }
            return watchers.unsubscribe(subscription)
        }
        guard case .local(let number, let writable)? = handles.withLock({ $0.close(handle) }) else { return }
        let file = locals.withLock { files in
            files.update(number) { file in
                file.handles -= 1
                if writable { file.writers -= 1 }
                return file
            }
        }
        guard let file else { return }
        if writable, file.writers == 0, let entryID = file.entryID, let writeBack {
            do {
                // The staging file's fsync and the journal's commit wait on the disk: off Swift's cooperative pool.
                let staging = file.staging
                try await Syscall.offThePool { [self] () throws in
                    try staging.sync()
                    try persistModifiedTime(number)
                }
                if try await !writeBack.uploader.fileClosed(entryID, reopened: hasWriters(number)) {
                    logger.debug("\(file.item.name) was uploaded before its last close")
                }
            } catch {
                logger.error("after closing \(file.item.name): \(error); the upload starts at the next mount")
            }
        }
        dropIfIdle(number)
    }

    /// The kernel session ended (unmount, SIGTERM): no RELEASE comes any more, so every handle still open counts
    /// as closed now, and what its file holds goes up with the rest. The kernel drops the RELEASEs it queued but
    /// the daemon had not read when it ends the connection (a `cp` closed just before SIGTERM stayed "open" and
    /// waited for the next mount), and a file still open at SIGTERM is cut off: its writer's next write fails.
    /// Returns how many handles were open for writing.
    public func closeHandlesLeftOpen() async -> Int {
        let open = handles.withLock { $0.all }
        for number in open.keys.sorted() { await releaseFile(handle: number) }
        return open.values.filter { if case .local(_, true) = $0 { true } else { false } }.count
    }

    /// Whether local file `number` has a writer now: asked by the uploader when a close reaches it,
    /// since a release and the next open race to it (RELEASE is asynchronous to close(2)).
    func hasWriters(_ number: UInt64) -> @Sendable () -> Bool {
        { [self] in (locals.withLock { $0.file(number)?.writers } ?? 0) > 0 }
    }

    /// Counts one more handle on the local file of an item, if it has one; returns its number.
    func attachHandle(toItemID id: String, writable: Bool = false) -> UInt64? {
        locals.withLock { files in
            guard let number = files.file(itemID: id)?.number else { return nil }
            files.update(number) { file in
                file.handles += 1
                if writable { file.writers += 1 }
            }
            return number
        }
    }

    /// The local copy of `item` (the existing one, or a new one) with one more handle counted, and one more writer
    /// when `writable`: made again when an upload landing dropped it before it was held. Answers its number and the
    /// journal entry it had then.
    func heldLocalCopy(of item: BoxItem, empty: Bool, writable: Bool) async throws(FSError) -> (UInt64, Int64?) {
        for _ in 0..<3 {
            let number = try await localCopy(of: item, empty: empty)
            let entryID: Int64?? = locals.withLock { files in
                files.update(number) { file in
                    file.handles += 1
                    if writable { file.writers += 1 }
                    return file.entryID
                }
            }
            if let entryID { return (number, entryID) }  // else dropped meanwhile: made again
        }
        throw FSError(.tryAgain, "\(item.name): its local copy keeps changing")
    }

    /// A local copy of `item` with one more writer: the existing one, or a new one. A file waiting
    /// for upload gets a new generation, so an upload already under way does not count as the last.
    private func openForWriting(_ item: BoxItem, empty: Bool) async throws(FSError) -> UInt64 {
        let (number, entryID) = try await heldLocalCopy(of: item, empty: empty, writable: true)
        guard let entryID, let writeBack else { return number }
        do {
            if try await !writeBack.uploader.fileOpened(entryID) {
                // Uploaded meanwhile: Box has this content; the next change journals anew.
                locals.withLock { $0.forgetEntry(entryID, of: number) }
            }
            return number
        } catch {
            let writers = locals.withLock { files in
                files.update(number) { file in
                    file.handles -= 1
                    file.writers -= 1
                    return file.writers
                }
            }
            // A release that raced this open left its close to us (it saw a writer): send it now.
            if writers == 0 { _ = try? await writeBack.uploader.fileClosed(entryID, reopened: hasWriters(number)) }
            throw FSError(error, context: "opening \(item.name)")
        }
    }

    /// Forgets a local file nobody has open once Box has its content (or it was deleted).
    /// Whether Box holds a lock on `item` that binds this mount's user (someone else's, not expired).
    func isLockedForUs(_ item: BoxItem) -> Bool {
        item.lock?.binds(options.userID) == true && locals.withLock({ $0.file(itemID: item.id) }) == nil
    }

    /// EACCES at `open` for writing a file someone else has locked on Box, with a log line naming the lock:
    /// Box would refuse its upload, which would only park and fail later.
    func refuseIfLocked(_ item: BoxItem) throws(FSError) {
        guard isLockedForUs(item), let lock = item.lock else { return }
        let who = lock.holder
        let until = lock.expiresAt.map { " until \(ISO8601DateFormatter().string(from: $0))" } ?? ""
        let failure = FSError(.accessDenied, "\(item.name) is locked on Box by \(who)\(until); it cannot be written here until it is unlocked")
        logger.warning("\(failure)")
        throw failure
    }

    /// Keeps local file `number` as if a handle had it open, so nothing (an upload finishing, a close) drops it
    /// until `unpin`.
    func pin(_ number: UInt64) {
        locals.withLock { files in files.update(number) { $0.handles += 1 } }
    }

    func unpin(_ number: UInt64) {
        locals.withLock { files in files.update(number) { $0.handles -= 1 } }
        dropIfIdle(number)
    }

    func dropIfIdle(_ number: UInt64) {
        let unused = state.withLock { state -> StagingFile? in
            guard let file = state.locals.file(number), file.handles <= 0, file.writers <= 0,
                file.entryID == nil || file.unlinked
            else { return nil }
            _ = state.locals.remove(number)
            return retire(file, in: &state)
        }
        unused?.remove()
    }

    /// The Box file behind an inode, or EISDIR/ENOENT (also for a detached node: it stands for no file).
    func fileItem(_ inode: UInt64) throws(FSError) -> BoxItem {
        guard let node = tree.withLock({ $0.node(inode) }) else { throw .notFound("inode \(inode)") }
        guard node.item.kind == .file else { throw .isDirectory(node.item.name) }
        guard !node.id.isDetached else { throw Self.detachedFromItem(node) }
        return node.item
    }

    /// A node whose item was deleted or replaced while the kernel held it.
    static func detachedFromItem(_ node: InodeTable.Node) -> FSError {
        FSError(.notFound, "\(node.item.name): inode \(node.inode) was detached from its item (deleted or replaced)")
    }
}
