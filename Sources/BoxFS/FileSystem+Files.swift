import BoxAPI
import Foundation
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
}

extension FileSystem {
    /// Opens a file. Writing is refused with EROFS until the write path exists.
    public func openFile(_ inode: UInt64, mode: OpenMode, truncate: Bool) throws(FSError) -> OpenedFile {
        guard let node = tree.withLock({ $0.node(inode) }) else { throw .notFound("inode \(inode)") }
        guard node.item.kind == .file else { throw .isDirectory(node.item.name) }
        if mode != .readOnly || truncate { throw .readOnly(node.item.name) }
        let item = node.item
        let file = RemoteFile(id: item.id, version: item.contentVersion, size: max(item.size, 0), sha1: item.sha1)
        let previous = openedVersions.withLock { $0.updateValue(file.version, forKey: inode) }
        let reader = FileReader(file: file, store: store, logger: logger)
        let handle = handles.withLock { $0.open(.file(reader)) }
        return OpenedFile(handle: handle, keepCache: previous == file.version)
    }

    /// Reads up to `length` bytes at `offset` (fewer only at the end of the file).
    public func read(handle: UInt64, offset: Int64, length: Int) async throws(FSError) -> Data {
        guard case .file(let reader)? = handles.withLock({ $0.handle(handle) }) else { throw .badHandle }
        do {
            return try await reader.read(offset: offset, length: length)
        } catch {
            let failure = FSError(error, context: "reading file \(reader.file.id)")
            logger.error("\(failure)")
            throw failure
        }
    }

    public func releaseFile(handle: UInt64) {
        _ = handles.withLock { $0.close(handle) }
    }
}
