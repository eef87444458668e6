import Foundation

/// The mount's own nodes (`VirtualInode`) as one provider: each public operation of the core asks
/// `VirtualInode(inode)` once and, for one of these, is answered here; the core's own operations
/// (`FileSystem.swift`, `+Files`, `+Directories`) deal with Box items and local files only.
extension FileSystem {
    /// The control directory's name at the root is looked up in Box first: a Box item of that name is shown (and
    /// the log says once how to reach the control directory); when Box has none, the control directory answers.
    func lookingUpControlName(_ name: String, parent: UInt64, inBox lookup: () async throws(FSError) -> FileAttributes)
        async throws(FSError) -> FileAttributes
    {
        guard isControlName(name, parent: parent) else { return try await lookup() }
        do {
            let attributes = try await lookup()
            reportShadowedControlDirectory()
            return attributes
        } catch where error.kind == .notFound {
            return rememberControlDirectory()
        }
    }

    /// `lookingUpControlName` without I/O: nil when the root's listing must be fetched first.
    func lookingUpControlNameNow(_ name: String, parent: UInt64, inBox lookup: () throws(FSError) -> FileAttributes?)
        throws(FSError) -> FileAttributes?
    {
        guard isControlName(name, parent: parent) else { return try lookup() }
        do {
            guard let attributes = try lookup() else { return nil }
            reportShadowedControlDirectory()
            return attributes
        } catch where error.kind == .notFound {
            return rememberControlDirectory()
        }
    }

    func virtualForget(_ virtual: VirtualInode, inode: UInt64, count: UInt64) {
        switch virtual {
        case .control: forgetControl(inode, count: count)
        case .commandQuery: commandQueries.withLock { $0.forget(inode, count: count) }
        case .status, .retry, .refresh, .commandFile, .watchFile: break
        }
    }

    func virtualAttributes(_ virtual: VirtualInode, inode: UInt64) throws(FSError) -> FileAttributes {
        switch virtual {
        case .status, .retry, .refresh: return statusFileAttributes(inode: inode)
        case .control: return try controlAttributes(inode)
        case .commandQuery:
            guard let query = commandQueryAttributes(inode) else { throw .notFound("command query") }
            return query
        case .watchFile(let folder):
            guard let attributes = watchFileAttributes(parent: folder, name: WatchFile.name) else { throw .notFound(WatchFile.name) }
            return attributes
        case .commandFile(let folder):
            guard let attributes = commandFileAttributes(parent: folder, name: CommandFile.name) else {
                throw .notFound(CommandFile.name)
            }
            return attributes
        }
    }

    func openVirtualFile(_ virtual: VirtualInode, inode: UInt64, mode: OpenMode, truncate: Bool)
        async throws(FSError) -> OpenedFile
    {
        switch virtual {
        case .status: return try await openStatusFile(mode: mode, truncate: truncate)
        case .retry: return try await openRetryFile(mode: mode, truncate: truncate)
        case .control: return try openControlFile(inode, mode: mode, truncate: truncate)
        case .refresh(let folder, let recursive):
            return try await openRefreshFile(folder: folder, recursive: recursive, mode: mode, truncate: truncate)
        case .commandFile(let folder): return try openCommandFile(folder: folder, mode: mode)
        case .commandQuery: return try openCommandQuery(inode, mode: mode)
        case .watchFile(let folder): return try openWatchFile(folder: folder, mode: mode, truncate: truncate)
        }
    }

    func openVirtualDirectory(_ virtual: VirtualInode, inode: UInt64) async throws(FSError) -> UInt64 {
        guard virtual == .control else { throw .notDirectory("inode \(inode)") }
        return try await openControlDirectory(inode)
    }
}
