import BoxAPI
import Foundation

/// `boxfs refresh` (see `RefreshFile`): what the mount holds for a folder is dropped and fetched again, for
/// servers or moments where Box's event stream misses a change.
extension FileSystem {
    /// Drops the cached listing of the folder `inode` (`recursive`: and every cached listing below it), tells
    /// the kernel to forget their names and the inodes it holds among them, then lists each of those folders
    /// again. Files with local content keep their kernel pages. Answers how many folders were listed.
    public func refresh(folder inode: UInt64, recursive: Bool) async throws(FSError) -> Int {
        let folder = try folderItem(inode)
        let (effect, below) = tree.withLock { $0.dropListings(of: folder, recursive: recursive) }
        let keep = Set(effect.inodes.filter { number in
            guard let id = tree.withLock({ $0.node(number)?.itemID }) else { return false }
            return locals.withLock { $0.file(itemID: id) != nil }
        })
        sendToKernel(effect, keepingPagesOf: keep)
        // What the control directory shows (versions, trash, search) is asked for again at its next visit too.
        controlState.views.withLock { views in
            controlState.generation.add(1, ordering: .acquiringAndReleasing)
            views = ControlViews()
        }
        logger.info("refresh of \(folder.name): listings of \(effect.folderIDs.count) folder(s) dropped")
        _ = try await listing(of: folder, inode: inode)
        var listed = 1
        for subfolder in below {
            do {
                _ = try await listing(of: subfolder, inode: tree.withLock { $0.inodeByID[.box(subfolder.id)] } ?? inode)
                listed += 1
            } catch {
                logger.debug("refresh: listing \(subfolder.name) again failed: \(error.message)")
            }
        }
        // The kernel has forgotten the old names and pages before the command returns (`ls` right after).
        await invalidationsSent()
        return listed
    }

    /// The attributes of `<folder>/.boxfs\refresh[-recursive]`, nil for any other name.
    func refreshFileAttributes(parent: UInt64, name: String) -> FileAttributes? {
        guard let recursive = RefreshFile.recursive(forName: name),
              tree.withLock({ $0.node(parent)?.item.kind == .folder })
        else { return nil }
        return statusFileAttributes(inode: RefreshFile.inode(folder: parent, recursive: recursive))
    }

    /// Opens a refresh file: the refresh runs before the open returns; reads `{"listed":N}`.
    func openRefreshFile(folder: UInt64, recursive: Bool, mode: OpenMode, truncate: Bool) async throws(FSError) -> OpenedFile {
        guard mode == .readOnly, !truncate else { throw FSError(.accessDenied, "\(RefreshFile.name) is read-only") }
        let listed = try await refresh(folder: folder, recursive: recursive)
        return snapshotOpened(Data("{\"listed\":\(listed)}".utf8))
    }
}
