import BoxAPI
import Foundation

/// Symbolic links, which Box does not have. With `-o links` (`FilesystemOptions.links`) a link is kept as a Box file
/// `NAME.boxlink` holding the target (`LinkFile`): `symlink` makes one, listings and lookups show it as the link `NAME`
/// (`S_IFLNK`, its size the target's length), `readlink` reads it, `unlink` and `rename` of `NAME` act on it. Without
/// the option `symlink` answers EPERM and logs one line naming the path, and `.boxlink` files show as plain files.
///
/// The adapter calls the `...ShowingLinks` entry points; each is the plain operation when the option is off.
extension FileSystem {
    /// Whether `item` is shown as a symbolic link.
    func isLinkFile(_ item: BoxItem) -> Bool {
        options.links && LinkFile.keepsLink(item)
    }

    /// `symlink(2)`: keeps `target` as the file `NAME.boxlink` in `parent` (written back like any file). Without
    /// `-o links`, EPERM whatever the name.
    public func makeSymbolicLink(parent: UInt64, name kernelName: KernelName, target: String) async throws(FSError)
        -> FileAttributes
    {
        guard options.links else {
            let name = (try? kernelName.new()) ?? "(a name that is not UTF-8)"
            let folder = (try? folderItem(parent)).flatMap { mountPath(ofFolder: $0.id) }
            let path = folder.map { $0.isEmpty ? name : $0 + "/" + name } ?? name
            let hint = "mount with -o links to keep them as \(name)\(LinkFile.suffix) files"
            logger.warning("symlink \(path) -> \(target) refused (EPERM): Box has no symbolic links; \(hint)")
            throw FSError(.notPermitted, "\(name): Box has no symbolic links (mount with -o links to keep them)")
        }
        let name = try kernelName.new()
        let bytes = Data(target.utf8)
        guard !bytes.isEmpty, bytes.count <= LinkFile.maximumTargetLength else {
            throw FSError(bytes.isEmpty ? .notFound : .nameTooLong,
                          "\(name): a link's target must be 1 to \(LinkFile.maximumTargetLength) bytes")
        }
        guard let stored = LinkFile.storedName(for: name) else {
            throw FSError(.nameTooLong, "\(name): with \(LinkFile.suffix) the name is longer than Box allows")
        }
        if await storedEntry(name, in: parent) != nil { throw .exists(name) }
        let (created, handle) = try await create(parent: parent, name: stored)
        do throws(FSError) {
            _ = try await write(handle: handle, offset: 0, data: bytes)
        } catch {
            await releaseFile(handle: handle)
            try? await unlink(parent: parent, name: stored)
            forget(created.inode, count: 1)
            throw error
        }
        await releaseFile(handle: handle)
        return try attributes(created.inode)
    }

    /// `readlink(2)`: the target a link keeps.
    public func readSymbolicLink(_ inode: UInt64) async throws(FSError) -> String {
        let shown = try attributes(inode)
        guard shown.kind == .symlink else { throw FSError(.invalidArgument, "inode \(inode): not a symbolic link") }
        let opened = try await openFile(inode, mode: .readOnly, truncate: false)
        var target = Data()
        do throws(FSError) {
            while target.count < Int(shown.size) {
                let data = try await read(
                    handle: opened.handle, offset: Int64(target.count), length: Int(shown.size) - target.count)
                if data.isEmpty { break }
                target.append(data)
            }
        } catch {
            await releaseFile(handle: opened.handle)
            throw error
        }
        await releaseFile(handle: opened.handle)
        return String(decoding: target, as: UTF8.self)
    }

    /// `lookup`, with a link found by the name it is shown by (and not by the name Box keeps it as).
    public func lookupShowingLinks(parent: UInt64, name: String) async throws(FSError) -> FileAttributes {
        guard options.links, !ControlDirectory.contains(parent) else {
            return try await lookup(parent: parent, name: name)
        }
        do throws(FSError) {
            return try shownUnderItsName(try await lookup(parent: parent, name: name), name)
        } catch {
            guard error.errno == ENOENT, let stored = LinkFile.storedName(for: name),
                let link = try? await lookup(parent: parent, name: stored)
            else { throw error }
            guard link.kind == .symlink else {
                forget(link.inode, count: 1)
                throw error
            }
            return link
        }
    }

    /// `lookupInFreshListing`, with a link found by the name it is shown by.
    public func lookupShowingLinksInFreshListing(parent: UInt64, name: String) throws(FSError) -> FileAttributes? {
        guard options.links, !ControlDirectory.contains(parent) else {
            return try lookupInFreshListing(parent: parent, name: name)
        }
        do throws(FSError) {
            guard let found = try lookupInFreshListing(parent: parent, name: name) else { return nil }
            return try shownUnderItsName(found, name)
        } catch {
            guard error.errno == ENOENT, let stored = LinkFile.storedName(for: name) else { throw error }
            guard let link = try? lookupInFreshListing(parent: parent, name: stored) else { throw error }
            guard link.kind == .symlink else {
                forget(link.inode, count: 1)
                throw error
            }
            return link
        }
    }

    /// `readDirectory`, with each link under the name it is shown by.
    public func readDirectoryShowingLinks(handle: UInt64, offset: Int) throws(FSError) -> [DirectoryEntry] {
        var entries = try readDirectory(handle: handle, offset: offset)
        guard options.links else { return entries }
        for index in entries.indices where entries[index].attributes.kind == .symlink && entries[index].position >= 2 {
            entries[index].name = LinkFile.shownName(of: entries[index].name) ?? entries[index].name
        }
        return entries
    }

    /// `unlink`, of a link by the name it is shown by.
    public func unlinkShowingLinks(parent: UInt64, name: String) async throws(FSError) {
        guard options.links, !ControlDirectory.contains(parent), let entry = await storedEntry(name, in: parent) else {
            return try await unlink(parent: parent, name: name)
        }
        try await unlink(parent: parent, name: entry.name)
    }

    /// `rename`, of and over links by the names they are shown by. A link renamed keeps its suffix on Box; what the
    /// new name stands for (a link, or a file when a link moves there) is replaced first, as rename(2) replaces it.
    public func renameShowingLinks(
        parent: UInt64, name: String, newParent: UInt64, newName: String, noReplace: Bool
    ) async throws(FSError) {
        guard options.links, !ControlDirectory.contains(parent), !ControlDirectory.contains(newParent),
            let source = await storedEntry(name, in: parent)
        else {
            return try await rename(
                parent: parent, name: name, newParent: newParent, newName: newName, noReplace: noReplace)
        }
        var storedNewName = newName
        if source.isLink {
            guard let stored = LinkFile.storedName(for: newName) else {
                throw FSError(.nameTooLong, "\(newName): with \(LinkFile.suffix) the name is longer than Box allows")
            }
            storedNewName = stored
        }
        if let replaced = await storedEntry(newName, in: newParent), replaced.isLink != source.isLink {
            if noReplace { throw .exists(newName) }
            if source.isFolder { throw .notDirectory(newName) }
            try await unlink(parent: newParent, name: replaced.name)  // EISDIR for a folder, as rename(2) has it
        }
        try await rename(
            parent: parent, name: source.name, newParent: newParent, newName: storedNewName, noReplace: noReplace)
    }

    /// The Box name behind the name `name` is shown by in folder `parent`: `name` itself for an item that is no link,
    /// else `NAME.boxlink` for a link; nil when neither is there.
    private func storedEntry(_ name: String, in parent: UInt64) async -> (name: String, isLink: Bool, isFolder: Bool)? {
        if let item = try? await child(name, in: parent).item, !isLinkFile(item) {
            return (name, false, item.kind == .folder)
        }
        if let stored = LinkFile.storedName(for: name), let item = try? await child(stored, in: parent).item,
            isLinkFile(item)
        {
            return (stored, true, false)
        }
        return nil
    }

    /// A link is shown by its name less the suffix: looked up by its Box name, it is not there.
    private func shownUnderItsName(_ found: FileAttributes, _ name: String) throws(FSError) -> FileAttributes {
        guard found.kind == .symlink else { return found }
        forget(found.inode, count: 1)
        throw .notFound(name)
    }
}
