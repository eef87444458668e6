import Foundation
import Glibc

/// Runs one thread's operations through real system calls on the mount (no shell per operation), holding the
/// thread's open file descriptors in its slots. Used by one thread only.
final class SyscallExecutor {
    var root: String
    private var descriptors: [Int: Int32] = [:]

    init(root: String) { self.root = root }

    deinit { closeAll() }

    func closeAll() {
        for fd in descriptors.values { Glibc.close(fd) }
        descriptors.removeAll()
    }

    private func path(_ relative: String) -> String { relative.isEmpty ? root : root + "/" + relative }

    private static func failure() -> Outcome { .error(Glibc.errno) }

    func run(_ op: Op) -> Outcome {
        switch op {
        case .writeFile(let relative, let fill):
            return withDescriptor(relative, O_WRONLY | O_CREAT | O_TRUNC) { fd in Self.writeAll(fd, fill.bytes, at: nil) }
        case .append(let relative, let fill):
            return withDescriptor(relative, O_WRONLY | O_APPEND) { fd in Self.writeAll(fd, fill.bytes, at: nil) }
        case .open(let slot, let relative, let writable, let create):
            if descriptors[slot] != nil { return .skipped }
            let flags = (writable ? O_RDWR : O_RDONLY) | (create ? O_CREAT : 0)
            let fd = Glibc.open(path(relative), flags, 0o644)
            if fd < 0 { return Self.failure() }
            descriptors[slot] = fd
            return .ok
        case .pwrite(let slot, let offset, let fill):
            guard let fd = descriptors[slot] else { return .skipped }
            return Self.writeAll(fd, fill.bytes, at: offset)
        case .pread(let slot, let offset, let length):
            guard let fd = descriptors[slot] else { return .skipped }
            return Self.readAll(fd, from: offset, upTo: length)
        case .ftruncate(let slot, let size):
            guard let fd = descriptors[slot] else { return .skipped }
            return Glibc.ftruncate(fd, off_t(size)) == 0 ? .ok : Self.failure()
        case .fsync(let slot):
            guard let fd = descriptors[slot] else { return .skipped }
            return Glibc.fsync(fd) == 0 ? .ok : Self.failure()
        case .close(let slot):
            guard let fd = descriptors.removeValue(forKey: slot) else { return .skipped }
            return Glibc.close(fd) == 0 ? .ok : Self.failure()
        case .truncate(let relative, let size):
            return Glibc.truncate(path(relative), off_t(size)) == 0 ? .ok : Self.failure()
        case .read(let relative):
            return withDescriptor(relative, O_RDONLY) { fd in Self.readAll(fd, from: 0, upTo: .max) }
        case .stat(let relative):
            var info = Glibc.stat()
            guard lstat(path(relative), &info) == 0 else { return Self.failure() }
            return Outcome(text: Self.describe(info))
        case .list(let relative):
            switch Self.list(path(relative)) {
            case .success(let entries):
                return Outcome(text: entries.sorted { $0.name < $1.name }.map { "\($0.name):\($0.kind)" }
                    .joined(separator: " "))
            case .failure(let error): return .error(error.code)
            }
        case .rename(let from, let to):
            return Glibc.rename(path(from), path(to)) == 0 ? .ok : Self.failure()
        case .unlink(let relative):
            return Glibc.unlink(path(relative)) == 0 ? .ok : Self.failure()
        case .mkdir(let relative):
            return Glibc.mkdir(path(relative), 0o755) == 0 ? .ok : Self.failure()
        case .rmdir(let relative):
            return Glibc.rmdir(path(relative)) == 0 ? .ok : Self.failure()
        }
    }

    private func withDescriptor(_ relative: String, _ flags: Int32, _ body: (Int32) -> Outcome) -> Outcome {
        let fd = Glibc.open(path(relative), flags, 0o644)
        if fd < 0 { return Self.failure() }
        let outcome = body(fd)
        let closed = Glibc.close(fd)
        if outcome.errno == 0 && closed != 0 { return Self.failure() }
        return outcome
    }

    /// `pwrite` (or `write` when `offset` is nil) until every byte is down.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], at offset: Int?) -> Outcome {
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeBytes { buffer -> Int in
                let start = buffer.baseAddress! + done
                if let offset { return Glibc.pwrite(fd, start, bytes.count - done, off_t(offset + done)) }
                return Glibc.write(fd, start, bytes.count - done)
            }
            if count < 0 { if Glibc.errno == EINTR { continue }; return failure() }
            done += count
        }
        return .ok
    }

    /// `pread` from `offset` until `length` bytes or the end.
    static func readAll(_ fd: Int32, from offset: Int, upTo length: Int) -> Outcome {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while result.count < length {
            let want = min(buffer.count, length - result.count)
            let count = buffer.withUnsafeMutableBytes { Glibc.pread(fd, $0.baseAddress!, want, off_t(offset + result.count)) }
            if count < 0 { if Glibc.errno == EINTR { continue }; return failure() }
            if count == 0 { break }
            result += buffer[0..<count]
        }
        return Outcome(bytes: result)
    }

    static func describe(_ info: Glibc.stat) -> String {
        (info.st_mode & S_IFMT) == S_IFDIR ? "dir" : "file \(info.st_size)"
    }

    struct Errno: Error { let code: Int32 }
    struct Listed { var name: String; var kind: String; var isFolder: Bool }

    /// `readdir` of a folder, then `fstatat` of each entry: `file:SIZE` or `dir`.
    static func list(_ folder: String) -> Result<[Listed], Errno> {
        guard let dir = opendir(folder) else { return .failure(Errno(code: Glibc.errno)) }
        defer { closedir(dir) }
        var names: [String] = []
        Glibc.errno = 0
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        if Glibc.errno != 0 { return .failure(Errno(code: Glibc.errno)) }
        var listed: [Listed] = []
        for name in names {
            var info = Glibc.stat()
            guard fstatat(dirfd(dir), name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return .failure(Errno(code: Glibc.errno)) }
            let isFolder = (info.st_mode & S_IFMT) == S_IFDIR
            listed.append(Listed(name: name, kind: isFolder ? "dir" : "file:\(info.st_size)", isFolder: isFolder))
        }
        return .success(listed)
    }

    /// The manifest (see `Manifest`) of everything under `root`, through the mount: sizes from `fstatat` after
    /// `readdir`, contents read in full; or the errno of the first call that failed.
    /// `reads` as in `CoreExecutor.walk`: every file read in full, or allowed to fail with EIO (`SIZE unreadable`, Box
    /// out of reach), or none read (`SIZE listed`).
    static func walk(_ root: String, reads: CoreExecutor.WalkReads = .all) -> Result<[String: String], Errno> {
        var result: [String: String] = [:]
        var pending = [""]
        while let relative = pending.popLast() {
            let folder = relative.isEmpty ? root : root + "/" + relative
            switch list(folder) {
            case .failure(let error): return .failure(error)
            case .success(let entries):
                for entry in entries {
                    let path = FileModel.join(relative, entry.name)
                    if entry.isFolder {
                        result[path + "/"] = Manifest.folder
                        pending.append(path)
                        continue
                    }
                    let size = Int(entry.kind.dropFirst("file:".count)) ?? -1
                    if reads == .none {
                        result[path] = Manifest.listed(size: size)
                        continue
                    }
                    let fd = Glibc.open(root + "/" + path, O_RDONLY)
                    if fd < 0 { return .failure(Errno(code: Glibc.errno)) }
                    let outcome = readAll(fd, from: 0, upTo: .max)
                    Glibc.close(fd)
                    if outcome.errno == EIO, reads == .allowingUnreadable {
                        result[path] = Manifest.unreadable(size: size)
                        continue
                    }
                    if outcome.errno != 0 { return .failure(Errno(code: outcome.errno)) }
                    result[path] = Manifest.file(size: size, outcome.bytes ?? [])
                }
            }
        }
        return .success(result)
    }
}
