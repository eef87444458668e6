import SystemCalls
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension CacheLayout {
    /// A block file found at start-up.
    struct ScannedBlock {
        let key: BlockKey
        let size: Int64
        /// Last write or read (reads set it with futimens), in nanoseconds: the LRU order.
        let lastUsed: Int64
    }

    /// Lists every block file with its size and last use: one readdir per fan-out folder and one
    /// fstatat per file, no file is opened (reads verify blocks lazily). Files that cannot be
    /// blocks (foreign names, wrong folder, too short) are deleted.
    func scan() -> [ScannedBlock] {
        var found: [ScannedBlock] = []
        for byte in 0..<256 {
            let folderName = String(byte >> 4, radix: 16) + String(byte & 0xF, radix: 16)
            scanFolder(folderName, into: &found)
        }
        return found
    }

    private func scanFolder(_ folderName: String, into found: inout [ScannedBlock]) {
        try? Syscall.forEachEntry(in: blocksDirectory + "/" + folderName) { directory, name in
            guard let info = try? directory.status(of: name) else { return }
            guard (info.st_mode & S_IFMT) == S_IFREG, let key = BlockKey(fileName: name), key.fanOut == folderName,
                  Int64(info.st_size) > Int64(BlockTrailer.fixedLength) else {
                try? directory.remove(name, directory: (info.st_mode & S_IFMT) == S_IFDIR)
                return
            }
            let lastUsed = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
            found.append(ScannedBlock(key: key, size: Int64(info.st_size), lastUsed: lastUsed))
        }
    }
}
