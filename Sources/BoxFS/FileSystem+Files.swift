import BoxAPI
import Foundation

/// How a file is being opened, as far as the core cares.
public enum OpenMode: Sendable {
    case readOnly
    case writeOnly
    case readWrite
}

extension FileSystem {
    /// Opens a file. Writing is refused with EROFS until the write path exists.
    public func openFile(_ inode: UInt64, mode: OpenMode, truncate: Bool) throws(FSError) -> UInt64 {
        guard let node = tree.withLock({ $0.node(inode) }) else { throw .notFound("inode \(inode)") }
        guard node.item.kind == .file else { throw .isDirectory(node.item.name) }
        if mode != .readOnly || truncate { throw .readOnly(node.item.name) }
        let reader = FileReader(fileID: node.item.id, size: max(node.item.size, 0), client: client)
        return handles.withLock { $0.open(.file(reader)) }
    }

    /// Reads up to `length` bytes at `offset` (fewer only at the end of the file).
    public func read(handle: UInt64, offset: Int64, length: Int) async throws(FSError) -> Data {
        guard case .file(let reader)? = handles.withLock({ $0.handle(handle) }) else { throw .badHandle }
        do {
            return try await reader.read(offset: offset, length: length)
        } catch {
            let failure = FSError(error, context: "reading file \(reader.fileID)")
            logger.error("\(failure)")
            throw failure
        }
    }

    public func releaseFile(handle: UInt64) {
        handles.withLock { $0.close(handle) }
    }
}
