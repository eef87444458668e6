import BoxFS
import Foundation
import Glibc

/// Runs one thread's operations against the filesystem core in-process, doing what the kernel's VFS does between
/// a system call and the FUSE requests it sends: walks a path one `lookup` at a time, answers the checks the VFS
/// makes itself (EISDIR, ENOTDIR, EEXIST, EINVAL, EBADF) and sends the rest as the adapter would. Handles live in
/// the same numbered slots as `SyscallExecutor`'s, so both executors run the same step lists against the same
/// model.
final class CoreExecutor: @unchecked Sendable {
    /// The core the executor runs against; replaced at a remount.
    var core: FileSystem
    /// The thread's folder, as a path from the mount's root.
    let folder: String
    private var slots: [Int: Slot] = [:]

    enum Slot {
        case file(handle: UInt64, inode: UInt64, writable: Bool)
        case directory(handle: UInt64)
    }

    init(core: FileSystem, folder: String) {
        self.core = core
        self.folder = folder
    }

    private struct Failure: Error { let errno: Int32 }

    private func components(_ relative: String) -> [String] {
        (folder + (relative.isEmpty ? "" : "/" + relative)).split(separator: "/").map(String.init)
    }

    /// The inode of a path's folder and the path's last name, or the errno the VFS walk would fail with.
    private func parent(of relative: String) async throws(Failure) -> (inode: UInt64, name: String) {
        var names = components(relative)
        let name = names.removeLast()
        var inode = FileSystem.rootInode
        for component in names {
            let attributes = try await lookup(inode, component)
            guard let attributes else { throw Failure(errno: ENOENT) }
            guard attributes.kind == .directory else { throw Failure(errno: ENOTDIR) }
            inode = attributes.inode
        }
        return (inode, name)
    }

    /// The name's attributes, nil when it does not exist.
    private func lookup(_ parent: UInt64, _ name: String) async throws(Failure) -> FileAttributes? {
        do { return try await core.lookup(parent: parent, name: name) } catch {
            if error.errno == ENOENT { return nil }
            throw Failure(errno: error.errno)
        }
    }

    private func resolve(_ relative: String) async throws(Failure) -> (parent: UInt64, name: String, FileAttributes?) {
        let (parent, name) = try await parent(of: relative)
        return (parent, name, try await lookup(parent, name))
    }

    private func call<T>(_ body: () async throws(FSError) -> T) async throws(Failure) -> T {
        do { return try await body() } catch { throw Failure(errno: error.errno) }
    }

    func run(_ op: Op) async -> Outcome {
        do {
            return try await execute(op)
        } catch {
            return .error(error.errno)
        }
    }

    private func execute(_ op: Op) async throws(Failure) -> Outcome {
        switch op {
        case .writeFile(let relative, let fill):
            let (handle, _) = try await openForWriting(relative, create: true, truncate: true)
            return try await writeAndClose(handle, fill.bytes, at: 0)
        case .append(let relative, let fill):
            let (handle, inode) = try await openForWriting(relative, create: false, truncate: false)
            let size = (try? core.attributes(inode).size) ?? 0
            return try await writeAndClose(handle, fill.bytes, at: Int64(size))
        case .open(let slot, let relative, let writable, let create):
            if slots[slot] != nil { return .skipped }
            let (parent, name, found) = try await resolve(relative)
            if let found {
                if found.kind == .directory {
                    if writable { return .error(EISDIR) }
                    slots[slot] = .directory(handle: try await call { () async throws(FSError) in try await core.openDirectory(found.inode) })
                    return .ok
                }
                let opened = try await call { () async throws(FSError) in
                    try await core.openFile(found.inode, mode: writable ? .readWrite : .readOnly, truncate: false)
                }
                slots[slot] = .file(handle: opened.handle, inode: found.inode, writable: writable)
                return .ok
            }
            guard create else { return .error(ENOENT) }
            let created = try await call { () async throws(FSError) in try await core.create(parent: parent, name: name) }
            slots[slot] = .file(handle: created.handle, inode: created.attributes.inode, writable: writable)
            return .ok
        case .pwrite(let slot, let offset, let fill):
            guard let open = slots[slot] else { return .skipped }
            guard case .file(let handle, _, true) = open else { return .error(EBADF) }
            try await writeAll(handle, fill.bytes, at: Int64(offset))
            return .ok
        case .pread(let slot, let offset, let length):
            guard let open = slots[slot] else { return .skipped }
            guard case .file(let handle, _, _) = open else { return .error(EISDIR) }
            return Outcome(bytes: try await readAll(handle, from: offset, upTo: length))
        case .ftruncate(let slot, let size):
            guard let open = slots[slot] else { return .skipped }
            guard case .file(let handle, let inode, true) = open else { return .error(EINVAL) }
            _ = try await call { () async throws(FSError) in
                try await core.setAttributes(inode, handle: handle, size: Int64(size), modified: nil)
            }
            return .ok
        case .fsync(let slot):
            guard let open = slots[slot] else { return .skipped }
            if case .file(let handle, _, _) = open { try await call { () throws(FSError) in try core.fsync(handle: handle) } }
            return .ok
        case .close(let slot):
            guard let open = slots.removeValue(forKey: slot) else { return .skipped }
            await close(open)
            return .ok
        case .truncate(let relative, let size):
            let (_, _, found) = try await resolve(relative)
            guard let found else { return .error(ENOENT) }
            if found.kind == .directory { return .error(EISDIR) }
            _ = try await call { () async throws(FSError) in
                try await core.setAttributes(found.inode, handle: nil, size: Int64(size), modified: nil)
            }
            return .ok
        case .read(let relative):
            let (_, _, found) = try await resolve(relative)
            guard let found else { return .error(ENOENT) }
            if found.kind == .directory { return .error(EISDIR) }
            return Outcome(bytes: try await readWhole(found.inode))
        case .stat(let relative):
            let (_, _, found) = try await resolve(relative)
            guard let found else { return .error(ENOENT) }
            return Outcome(text: found.kind == .directory ? "dir" : "file \(found.size)")
        case .list(let relative):
            let inode: UInt64
            if relative.isEmpty && folder.isEmpty {
                inode = FileSystem.rootInode
            } else {
                let (_, _, found) = try await resolve(relative)
                guard let found else { return .error(ENOENT) }
                guard found.kind == .directory else { return .error(ENOTDIR) }
                inode = found.inode
            }
            let entries = try await list(inode)
            return Outcome(text: entries.sorted { $0.name < $1.name }.map { "\($0.name):\($0.kind)" }.joined(separator: " "))
        case .rename(let from, let to):
            let (sourceParent, sourceName, source) = try await resolve(from)
            guard let source else { return .error(ENOENT) }
            let (targetParent, targetName, target) = try await resolve(to)
            if let target {
                if target.inode == source.inode { return .ok }
                if source.kind == .file, target.kind == .directory { return .error(EISDIR) }
                if source.kind == .directory, target.kind == .file { return .error(ENOTDIR) }
            }
            if source.kind == .directory, (to + "/").hasPrefix(from + "/") { return .error(EINVAL) }
            try await call { () async throws(FSError) in
                try await core.rename(parent: sourceParent, name: sourceName, newParent: targetParent, newName: targetName,
                                      noReplace: false)
            }
            return .ok
        case .unlink(let relative):
            let (parent, name, found) = try await resolve(relative)
            guard let found else { return .error(ENOENT) }
            if found.kind == .directory { return .error(EISDIR) }
            try await call { () async throws(FSError) in try await core.unlink(parent: parent, name: name) }
            return .ok
        case .mkdir(let relative):
            let (parent, name, found) = try await resolve(relative)
            if found != nil { return .error(EEXIST) }
            _ = try await call { () async throws(FSError) in try await core.makeDirectory(parent: parent, name: name) }
            return .ok
        case .rmdir(let relative):
            let (parent, name, found) = try await resolve(relative)
            guard let found else { return .error(ENOENT) }
            if found.kind != .directory { return .error(ENOTDIR) }
            try await call { () async throws(FSError) in try await core.removeDirectory(parent: parent, name: name) }
            return .ok
        }
    }

    /// `open(O_WRONLY | [O_CREAT] | [O_TRUNC])`: the existing file opened, or a new one created.
    private func openForWriting(_ relative: String, create: Bool, truncate: Bool) async throws(Failure) -> (UInt64, UInt64) {
        let (parent, name, found) = try await resolve(relative)
        if let found {
            if found.kind == .directory { throw Failure(errno: EISDIR) }
            let opened = try await call { () async throws(FSError) in try await core.openFile(found.inode, mode: .writeOnly, truncate: truncate) }
            return (opened.handle, found.inode)
        }
        guard create else { throw Failure(errno: ENOENT) }
        let created = try await call { () async throws(FSError) in try await core.create(parent: parent, name: name) }
        return (created.handle, created.attributes.inode)
    }

    private func writeAndClose(_ handle: UInt64, _ bytes: [UInt8], at offset: Int64) async throws(Failure) -> Outcome {
        let outcome: Outcome
        do { try await writeAll(handle, bytes, at: offset); outcome = .ok } catch { outcome = .error(error.errno) }
        await core.releaseFile(handle: handle)
        return outcome
    }

    /// Writes in pieces of at most 128 KiB, as the kernel sends them.
    private func writeAll(_ handle: UInt64, _ bytes: [UInt8], at offset: Int64) async throws(Failure) {
        var done = 0
        while done < bytes.count {
            let piece = Data(bytes[done..<min(bytes.count, done + 131_072)])
            let written = try await call { () async throws(FSError) in
                try await core.write(handle: handle, offset: offset + Int64(done), data: piece)
            }
            guard written > 0 else { throw Failure(errno: EIO) }
            done += written
        }
    }

    private func readAll(_ handle: UInt64, from offset: Int, upTo length: Int) async throws(Failure) -> [UInt8] {
        var result: [UInt8] = []
        while result.count < length {
            let want = min(131_072, length - result.count)
            let data = try await call { () async throws(FSError) in
                try await core.read(handle: handle, offset: Int64(offset + result.count), length: want)
            }
            if data.isEmpty { break }
            result += data
        }
        return result
    }

    /// open, read to the end, close.
    private func readWhole(_ inode: UInt64) async throws(Failure) -> [UInt8] {
        let opened = try await call { () async throws(FSError) in try await core.openFile(inode, mode: .readOnly, truncate: false) }
        let bytes: [UInt8]
        do { bytes = try await readAll(opened.handle, from: 0, upTo: .max) } catch {
            await core.releaseFile(handle: opened.handle)
            throw error
        }
        await core.releaseFile(handle: opened.handle)
        return bytes
    }

    /// `readdir` as readdirplus does it (each entry's node remembered), then the attributes of every entry.
    private func list(_ inode: UInt64) async throws(Failure) -> [(name: String, kind: String)] {
        let handle = try await call { () async throws(FSError) in try await core.openDirectory(inode) }
        defer { core.releaseDirectory(handle: handle) }
        let entries = try await call { () throws(FSError) in try core.readDirectory(handle: handle, offset: 0) }
        var listed: [(name: String, kind: String)] = []
        for entry in entries where entry.position >= 2 {
            let attributes: FileAttributes
            switch try await call({ () throws(FSError) in try core.rememberEntry(handle: handle, position: entry.position) }) {
            case .gone: continue
            case .node(let remembered): attributes = remembered
            case .nameOnly:
                guard let found = try await lookup(inode, entry.name) else { throw Failure(errno: ENOENT) }
                attributes = found
            }
            listed.append((entry.name, attributes.kind == .directory ? "dir" : "file:\(attributes.size)"))
        }
        return listed
    }

    private func close(_ slot: Slot) async {
        switch slot {
        case .file(let handle, _, _): await core.releaseFile(handle: handle)
        case .directory(let handle): core.releaseDirectory(handle: handle)
        }
    }

    func closeAll() async {
        let open = slots
        slots.removeAll()
        for slot in open.values { await close(slot) }
    }

    /// How a walk reads the files it finds.
    enum WalkReads {
        /// Every file read in full (`SIZE sha1=HEX`).
        case all
        /// Every file read in full; one whose read fails with EIO is `SIZE unreadable` (Box out of reach).
        case allowingUnreadable
        /// None: `SIZE listed`, the listings alone (as `ls -lR`).
        case none
    }

    /// The manifest of everything under the thread's folder as the core shows it (`Manifest`), paths prefixed with
    /// `prefix`; sizes from the listing, contents read in full (or as `reads` says).
    func walk(prefix: String, reads: WalkReads = .all) async -> Result<[String: String], SyscallExecutor.Errno> {
        var result: [String: String] = [:]
        var pending: [(UInt64, String)] = []
        do throws(Failure) {
            let (_, _, found) = try await resolve("")
            guard let found else { return .failure(.init(code: ENOENT)) }
            pending.append((found.inode, ""))
            while let (inode, relative) = pending.popLast() {
                let handle = try await call { () async throws(FSError) in try await core.openDirectory(inode) }
                let entries = (try? core.readDirectory(handle: handle, offset: 0)) ?? []
                core.releaseDirectory(handle: handle)
                for entry in entries where entry.position >= 2 {
                    let path = FileModel.join(relative, entry.name)
                    guard let attributes = try await lookup(inode, entry.name) else { throw Failure(errno: ENOENT) }
                    if attributes.kind == .directory {
                        result[prefix + path + "/"] = Manifest.folder
                        pending.append((attributes.inode, path))
                        continue
                    }
                    switch reads {
                    case .none:
                        result[prefix + path] = Manifest.listed(size: Int(attributes.size))
                    case .allowingUnreadable:
                        do throws(Failure) {
                            result[prefix + path] = Manifest.file(size: Int(attributes.size), try await readWhole(attributes.inode))
                        } catch let failure where failure.errno == EIO {
                            result[prefix + path] = Manifest.unreadable(size: Int(attributes.size))
                        }
                    case .all:
                        result[prefix + path] = Manifest.file(size: Int(attributes.size), try await readWhole(attributes.inode))
                    }
                }
            }
        } catch {
            return .failure(.init(code: error.errno))
        }
        return .success(result)
    }
}
