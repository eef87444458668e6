import SystemCalls
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Paths inside the cache directory, and the start-up steps that make them usable:
///
/// ```
/// <directory>/                         0700, may be shared with unrelated files: only the names
///   boxfs-cache.lock                   below are ever touched. flock()ed while a cache is open;
///                                      its mtime is the last opening (see SharedCacheDirectory).
///   boxfs-layout-2/                    everything of layout version 2; any other
///     LAYOUT                           "boxfs-layout-*" folder is deleted at start.
///     tmp/<n>                          replacement blocks being written; emptied at start.
///     blocks/<xx>/<file>~<version>~<block>   one file per block (data + BlockTrailer),
///     verified/<file>~<version>        empty: the version's cached blocks were part of a whole
///                                      read that matched Box's SHA-1 (see BlockCache+Verified).
///     pinned/<file>                    holds the Box file id: the file's blocks are pinned, never
///                                      evicted, counted apart from the capacity (see BlockCache+Pins).
/// ```
/// `LAYOUT` holds the layout version and the block size; when it is missing or differs (another
/// block size), the whole layout folder is rebuilt empty.
struct CacheLayout: Sendable {
    static let layoutPrefix = "boxfs-layout-"
    static let lockName = "boxfs-cache.lock"

    let root: String
    let layoutDirectory: String
    let blockSize: Int

    init(directory: URL, blockSize: Int) {
        root = directory.standardizedFileURL.path
        layoutDirectory = root + "/" + Self.layoutPrefix + String(BlockCache.layoutVersion)
        self.blockSize = blockSize
    }

    var lockPath: String { root + "/" + Self.lockName }
    var markerPath: String { layoutDirectory + "/LAYOUT" }
    var tempDirectory: String { layoutDirectory + "/tmp" }
    var blocksDirectory: String { layoutDirectory + "/blocks" }
    var verifiedDirectory: String { layoutDirectory + "/verified" }
    func verifiedPath(_ versionName: String) -> String { verifiedDirectory + "/" + versionName }
    var pinnedDirectory: String { layoutDirectory + "/pinned" }
    func pinnedPath(_ file: String) -> String { pinnedDirectory + "/" + file }
    var marker: String { "boxfs block cache\nlayout \(BlockCache.layoutVersion)\nblock-size \(blockSize)\n" }

    func blockPath(_ key: BlockKey) -> String { blocksDirectory + "/" + key.fanOut + "/" + key.fileName }
    func tempPath(_ number: UInt64) -> String { tempDirectory + "/" + String(number) }

    /// Creates the root (0700) and takes the lock; returns the lock's file descriptor, held for the
    /// cache's lifetime so two caches never share one directory.
    func lock() throws -> Int32 {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let fd = try Syscall.open(lockPath, O_RDWR | O_CREAT)
        if try !Syscall.lockExclusively(fd, path: lockPath) {
            Syscall.close(fd)
            throw BlockCacheError.directoryInUse(path: root)
        }
        // Its time is the cache's last opening: another mount sharing the `cache_dir` sees it in use lately.
        try? Syscall.touch(fd, path: lockPath)
        return fd
    }

    /// Deletes other layout versions and a layout folder made for another block size, then
    /// creates what is missing and empties `tmp`. Call with the lock held.
    func prepare() throws {
        let fileManager = FileManager.default
        for name in try fileManager.contentsOfDirectory(atPath: root) where name.hasPrefix(Self.layoutPrefix) {
            let path = root + "/" + name
            if path != layoutDirectory { try fileManager.removeItem(atPath: path) }
        }
        let currentMarker = try? String(contentsOfFile: markerPath, encoding: .utf8)
        if currentMarker != marker, fileManager.fileExists(atPath: layoutDirectory) {
            try fileManager.removeItem(atPath: layoutDirectory)
        }
        try Syscall.makeDirectory(layoutDirectory)
        try Syscall.makeDirectory(blocksDirectory)
        try Syscall.makeDirectory(verifiedDirectory)
        try Syscall.makeDirectory(pinnedDirectory)
        if fileManager.fileExists(atPath: tempDirectory) { try fileManager.removeItem(atPath: tempDirectory) }
        try Syscall.makeDirectory(tempDirectory)
        for byte in 0..<256 {
            try Syscall.makeDirectory(blocksDirectory + "/" + String(format: "%02x", byte))
        }
        if currentMarker != marker {
            let temp = tempPath(0)
            try Data(marker.utf8).write(to: URL(fileURLWithPath: temp))
            try Syscall.rename(temp, to: markerPath)
        }
    }
}
