import BoxFS
import CFuse
import Foundation

/// Conversions from the core's types to the kernel's structs.
extension stat {
    init(_ attributes: FileAttributes) {
        self.init()
        st_ino = UInt(attributes.inode)
        st_mode = switch attributes.kind {
        case .directory: S_IFDIR | mode_t(attributes.permissions)
        case .file: S_IFREG | mode_t(attributes.permissions)
        case .symlink: S_IFLNK | 0o777  // a link's own mode is never checked
        }
        st_nlink = UInt(attributes.linkCount)
        st_uid = attributes.uid
        st_gid = attributes.gid
        st_size = Int(clamping: attributes.size)
        st_blksize = Int(attributes.blockSize)
        st_blocks = Int(clamping: (attributes.size + 511) / 512)
        st_mtim = timespec(attributes.modified)
        st_atim = timespec(attributes.accessed)
        st_ctim = timespec(attributes.changed)
    }
}

extension timespec {
    init(_ date: Date) {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        self.init(tv_sec: Int(seconds), tv_nsec: Int((date.timeIntervalSince1970 - seconds) * 1_000_000_000))
    }
}

extension statvfs {
    init(_ statistics: FilesystemStatistics) {
        self.init()
        f_bsize = UInt(statistics.blockSize)
        f_frsize = UInt(statistics.blockSize)
        f_blocks = UInt(statistics.totalBlocks)
        f_bfree = UInt(statistics.freeBlocks)
        f_bavail = UInt(statistics.freeBlocks)
        f_files = 1_000_000_000
        f_ffree = 1_000_000_000
        f_favail = 1_000_000_000
        f_namemax = UInt(statistics.maxNameLength)
    }
}

extension fuse_entry_param {
    init(_ attributes: FileAttributes, entryTimeout: Double, attributeTimeout: Double) {
        self.init()
        ino = attributes.inode
        generation = 1
        attr = stat(attributes)
        attr_timeout = attributeTimeout
        entry_timeout = entryTimeout
    }
}
