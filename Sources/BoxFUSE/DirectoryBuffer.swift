import BoxFS
import CFuse
import Foundation

/// Packs directory entries into the kernel's buffer for readdir and readdirplus.
enum DirectoryBuffer {
    /// Fills at most `size` bytes with entries and replies. For readdirplus, each entry other than
    /// "." and ".." that fits counts as a lookup (the kernel will later `forget` it), so the core is
    /// told only about the entries that were really sent (and an entry gone since the opendir is left out).
    static func fill(
        _ request: FUSERequest, entries: [DirectoryEntry], filesystem fs: FileSystem, handle: UInt64, size: Int, plus: Bool
    ) throws(FSError) {
        var buffer = [CChar](repeating: 0, count: size)
        var used = 0
        for entry in entries {
            let fits = request.withRawRequest { raw -> Bool in
                entry.name.withCString { name in
                    let needed = plus
                        ? fuse_add_direntry_plus(raw, nil, 0, name, nil, 0)
                        : fuse_add_direntry(raw, nil, 0, name, nil, 0)
                    return used + needed <= size
                }
            }
            guard fits else { break }
            let isDot = entry.position < 2
            var attributes = entry.attributes
            var linked = true
            if plus, !isDot {
                switch try fs.rememberEntry(handle: handle, position: entry.position) {
                case .node(let current): attributes = current
                // Gone since the folder was opened: left out rather than linked under a name it no longer has.
                case .gone: continue
                case .nameOnly: linked = false
                }
            }
            if !isDot, !plus || !linked {
                // Plain readdir needs only a stable, non-zero d_ino; the kernel looks names up later.
                attributes.inode = 0x8000_0000_0000_0000 | UInt64(entry.position)
            }
            let nextOffset = off_t(entry.position + 1)
            used += request.withRawRequest { raw in
                buffer.withUnsafeMutableBufferPointer { bytes in
                    entry.name.withCString { name in
                        if plus {
                            var param = fuse_entry_param(
                                attributes, entryTimeout: fs.entryTimeout, attributeTimeout: fs.attributeTimeout)
                            if !linked { param.ino = 0 }  // no node: the kernel links nothing, and looks the name up
                            return fuse_add_direntry_plus(raw, bytes.baseAddress! + used, size - used, name, &param, nextOffset)
                        }
                        var status = stat(attributes)
                        return fuse_add_direntry(raw, bytes.baseAddress! + used, size - used, name, &status, nextOffset)
                    }
                }
            }
        }
        request.bytes(buffer, count: used)
    }
}
