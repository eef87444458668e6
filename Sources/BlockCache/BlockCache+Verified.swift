import SystemCalls
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which cached versions are known to be Box's bytes.
///
/// Box gives only a SHA-1 of the whole file, so a block fetched by a partial read cannot be checked on its
/// own: until a whole read of its version matched, it is *unverified* (kept and served, the best there is,
/// but the kernel is not allowed to keep its pages across opens, so the next whole read sees and checks every
/// byte). `markVerified` records a match as an empty file `verified/<file>~<version>`. The marker goes when a
/// block of the version is written again (a new fetch is unverified until its own whole read) and with the
/// file's blocks (`remove(fileID:)`: a failed check). Markers of versions without blocks (the file moved on to
/// another version, or every block was evicted) are deleted at start-up and vouch for nothing meanwhile:
/// `markVerified` needs blocks, and any block written later unmarks its version.
/// Markers are kept in the same index and under the same lock as the blocks.
extension BlockCache {
    /// Whether the cached blocks of this version were all part of a whole read that matched Box's SHA-1.
    public func isVerified(fileID: String, version: String) -> Bool {
        guard let key = BlockKey(fileID: fileID, version: version, block: 0) else { return false }
        return state.withLock { $0.verified.contains(key.versionName) }
    }

    /// Records that a whole read of this version matched Box's SHA-1 (once its blocks are written).
    public func markVerified(fileID: String, version: String) {
        guard let key = BlockKey(fileID: fileID, version: version, block: 0) else { return }
        state.withLock { index in
            guard index.hasBlocks(file: key.file, version: key.version), !index.verified.contains(key.versionName)
            else { return }
            let path = layout.verifiedPath(key.versionName)
            let fd: Int32
            do throws(SystemCallError) { fd = try Syscall.open(path, O_WRONLY | O_CREAT) } catch {
                logger.warning("block cache could not record a verified version", metadata: ["errno": "\(error.errno)"])
                return
            }
            Syscall.close(fd)
            index.verified.insert(key.versionName)
        }
    }

    /// Forgets that this version was verified (a block of it was fetched again). Without a marker, a set lookup
    /// and no disk access.
    public func unmarkVerified(fileID: String, version: String) {
        guard let key = BlockKey(fileID: fileID, version: version, block: 0) else { return }
        state.withLock { index in unmarkVerified(key, in: &index) }
    }

    /// Forgets the marker of `key`'s version, if any. Call under the lock.
    func unmarkVerified(_ key: BlockKey, in index: inout CacheIndex) {
        if index.verified.remove(key.versionName) != nil { try? Syscall.unlink(layout.verifiedPath(key.versionName)) }
    }

    /// Forgets the markers of every version of the escaped file id (a scan of all markers: for removals only).
    /// Call under the lock.
    func unmarkVerified(file: String, in index: inout CacheIndex) {
        for name in index.unmarkVerified(file: file) { try? Syscall.unlink(layout.verifiedPath(name)) }
    }

    /// Loads the markers found at start-up; a marker of a version without blocks is deleted.
    static func loadVerified(layout: CacheLayout, into index: inout CacheIndex) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: layout.verifiedDirectory)) ?? []
        for name in names {
            let parts = name.split(separator: "~", omittingEmptySubsequences: false)
            if parts.count == 2, index.hasBlocks(file: String(parts[0]), version: String(parts[1])) {
                index.verified.insert(name)
            } else {
                try? Syscall.unlink(layout.verifiedPath(name))
            }
        }
    }
}
