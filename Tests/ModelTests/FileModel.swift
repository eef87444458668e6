import Foundation
import Glibc

/// What an operation answered, in a form the model and the mount produce alike: an errno (0 for success) and,
/// for reads, stats and listings, what was seen.
struct Outcome: Sendable, Equatable, CustomStringConvertible {
    var errno: Int32 = 0
    /// Bytes read (pread, read).
    var bytes: [UInt8]?
    /// `file SIZE` / `dir` for stat; `name:file:SIZE name:dir ...` (sorted) for a listing.
    var text: String?

    static let ok = Outcome()
    static let skipped = Outcome(errno: -1)
    static func error(_ code: Int32) -> Outcome { Outcome(errno: code) }

    var description: String {
        if errno == -1 { return "skipped" }
        if errno != 0 { return "errno \(errno) (\(String(cString: strerror(errno))))" }
        if let bytes { return "\(bytes.count) bytes" }
        return text ?? "ok"
    }

    /// Where two reads first differ, for the report.
    static func firstDifference(_ a: [UInt8], _ b: [UInt8]) -> String {
        let index = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
        return "first difference at byte \(index) (lengths \(a.count) and \(b.count))"
    }
}

/// The reference model of one thread's folder: what POSIX and docs/SEMANTICS.md say the mount must show.
/// Files are inodes (ids → bytes) so a handle keeps reading and writing a file after its unlink.
struct FileModel: Sendable {
    enum Entry: Sendable, Equatable { case dir, file(Int) }

    /// Relative path (no leading `/`) → entry; the thread's folder itself is "".
    private(set) var entries: [String: Entry] = ["": .dir]
    private(set) var contents: [Int: [UInt8]] = [:]
    private(set) var handles: [Int: (file: Int, writable: Bool)] = [:]
    private var nextFile = 1
    /// The file id of a handle open on a folder.
    static let folderHandle = -1

    static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[..<slash])
    }

    static func name(_ path: String) -> String {
        path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
    }

    static func join(_ dir: String, _ name: String) -> String { dir.isEmpty ? name : dir + "/" + name }

    func children(of dir: String) -> [String] {
        entries.keys.filter { !$0.isEmpty && Self.parent($0) == dir }.sorted()
    }

    var openSlots: [Int] { handles.keys.sorted() }
    func handle(_ slot: Int) -> (file: Int, writable: Bool)? { handles[slot] }

    /// The files (path → bytes) and folders (path + "/") under the thread's folder.
    var tree: [String: [UInt8]?] {
        var result: [String: [UInt8]?] = [:]
        for (path, entry) in entries where !path.isEmpty {
            switch entry {
            case .dir: result[path + "/"] = .some(nil)
            case .file(let id): result[path] = contents[id]
            }
        }
        return result
    }

    /// ENOENT / ENOTDIR for a path whose parent is not an existing folder, else nil.
    private func parentError(_ path: String) -> Int32? {
        switch entries[Self.parent(path)] {
        case .dir: nil
        case .file: ENOTDIR
        case nil: Self.parent(path).isEmpty ? nil : (parentError(Self.parent(path)) ?? ENOENT)
        }
    }

    /// Box's names are unique regardless of case: another entry whose name differs only in case (other than
    /// `source`, the entry a rename moves: renaming `F0` to `f0` in its folder changes only the case).
    private func caseTwin(_ path: String, source: String? = nil) -> Bool {
        let folded = Self.name(path).lowercased()
        return children(of: Self.parent(path)).contains {
            $0 != path && $0 != source && Self.name($0).lowercased() == folded
        }
    }

    private mutating func newFile(_ path: String) -> Int {
        let id = nextFile
        nextFile += 1
        contents[id] = []
        entries[path] = .file(id)
        return id
    }

    private mutating func write(_ id: Int, at offset: Int, _ data: [UInt8]) {
        var bytes = contents[id] ?? []
        if bytes.count < offset + data.count { bytes += [UInt8](repeating: 0, count: offset + data.count - bytes.count) }
        bytes.replaceSubrange(offset..<offset + data.count, with: data)
        contents[id] = bytes
    }

    private mutating func resize(_ id: Int, to size: Int) {
        var bytes = contents[id] ?? []
        if size < bytes.count { bytes.removeSubrange(size...) } else { bytes += [UInt8](repeating: 0, count: size - bytes.count) }
        contents[id] = bytes
    }

    /// Drops file contents no entry or handle refers to.
    private mutating func collect() {
        let live = Set(entries.values.compactMap { if case .file(let id) = $0 { id } else { nil } })
            .union(handles.values.map(\.file))
        contents = contents.filter { live.contains($0.key) }
    }

    /// The id of the file at `path`, nil for a folder or nothing.
    func fileID(_ path: String) -> Int? {
        if case .file(let id) = entries[path] { return id }
        return nil
    }

    /// The path of the file whose path, compared as Box compares names (regardless of case), is `folded`.
    func filePath(folded: String) -> String? {
        entries.first { $0.key.lowercased() == folded && $0.value != .dir }?.key
    }

    /// Someone else's change reached the mount: the file at `path` now holds `bytes` (made when absent). Answers
    /// its id.
    @discardableResult
    mutating func changedElsewhere(_ path: String, to bytes: [UInt8]) -> Int {
        let id = fileID(path) ?? newFile(path)
        contents[id] = bytes
        return id
    }

    /// Someone else deleted the file at `path` (a handle open on it keeps reading what it held).
    mutating func deletedElsewhere(_ path: String) {
        guard fileID(path) != nil else { return }
        entries[path] = nil
        collect()
    }

    /// Every handle closed (before a remount or a kill).
    mutating func closeAll() {
        handles.removeAll()
        collect()
    }

    /// Applies `op`; answers what the mount must answer.
    mutating func apply(_ op: Op) -> Outcome {
        defer { collect() }
        switch op {
        case .writeFile(let path, let fill):
            switch entries[path] {
            case .dir: return .error(EISDIR)
            case .file(let id): contents[id] = fill.bytes; return .ok
            case nil:
                if let error = parentError(path) { return .error(error) }
                if caseTwin(path) { return .error(EEXIST) }
                contents[newFile(path)] = fill.bytes
                return .ok
            }
        case .append(let path, let fill):
            switch entries[path] {
            case .dir: return .error(EISDIR)
            case .file(let id): write(id, at: contents[id]?.count ?? 0, fill.bytes); return .ok
            case nil: return .error(parentError(path) ?? ENOENT)
            }
        case .open(let slot, let path, let writable, let create):
            if handles[slot] != nil { return .skipped }
            switch entries[path] {
            case .dir:
                // A folder opens read-only (its reads are EISDIR); for writing it is EISDIR.
                if writable { return .error(EISDIR) }
                handles[slot] = (Self.folderHandle, false)
                return .ok
            case .file(let id): handles[slot] = (id, writable); return .ok
            case nil:
                if let error = parentError(path) { return .error(error) }
                guard create else { return .error(ENOENT) }
                if caseTwin(path) { return .error(EEXIST) }
                handles[slot] = (newFile(path), writable)
                return .ok
            }
        case .pwrite(let slot, let offset, let fill):
            guard let handle = handles[slot] else { return .skipped }
            guard handle.writable else { return .error(EBADF) }
            write(handle.file, at: offset, fill.bytes)
            return .ok
        case .pread(let slot, let offset, let length):
            guard let handle = handles[slot] else { return .skipped }
            if handle.file == Self.folderHandle { return .error(EISDIR) }
            let bytes = contents[handle.file] ?? []
            let start = min(offset, bytes.count)
            return Outcome(bytes: Array(bytes[start..<min(bytes.count, offset + length)]))
        case .ftruncate(let slot, let size):
            guard let handle = handles[slot] else { return .skipped }
            guard handle.writable else { return .error(EINVAL) }
            resize(handle.file, to: size)
            return .ok
        case .fsync(let slot):
            return handles[slot] == nil ? .skipped : .ok
        case .close(let slot):
            return handles.removeValue(forKey: slot) == nil ? .skipped : .ok
        case .truncate(let path, let size):
            switch entries[path] {
            case .dir: return .error(EISDIR)
            case .file(let id): resize(id, to: size); return .ok
            case nil: return .error(parentError(path) ?? ENOENT)
            }
        case .read(let path):
            switch entries[path] {
            case .dir: return .error(EISDIR)
            case .file(let id): return Outcome(bytes: contents[id] ?? [])
            case nil: return .error(parentError(path) ?? ENOENT)
            }
        case .stat(let path):
            switch entries[path] {
            case .dir: return Outcome(text: "dir")
            case .file(let id): return Outcome(text: "file \(contents[id]?.count ?? 0)")
            case nil: return .error(parentError(path) ?? ENOENT)
            }
        case .list(let path):
            switch entries[path] {
            case .dir: return Outcome(text: listing(path))
            case .file: return .error(ENOTDIR)
            case nil: return .error(parentError(path) ?? ENOENT)
            }
        case .rename(let from, let to):
            return rename(from, to)
        case .unlink(let path):
            switch entries[path] {
            case .dir: return .error(EISDIR)
            case .file: entries[path] = nil; return .ok
            case nil: return .error(parentError(path) ?? ENOENT)
            }
        case .mkdir(let path):
            if entries[path] != nil { return .error(EEXIST) }
            if let error = parentError(path) { return .error(error) }
            if caseTwin(path) { return .error(EEXIST) }
            entries[path] = .dir
            return .ok
        case .rmdir(let path):
            switch entries[path] {
            case .file: return .error(ENOTDIR)
            case nil: return .error(parentError(path) ?? ENOENT)
            case .dir:
                if !children(of: path).isEmpty { return .error(ENOTEMPTY) }
                entries[path] = nil
                return .ok
            }
        }
    }

    /// `name:file:SIZE` / `name:dir`, sorted, space-separated.
    func listing(_ dir: String) -> String {
        children(of: dir).map { path in
            switch entries[path] {
            case .file(let id): "\(Self.name(path)):file:\(contents[id]?.count ?? 0)"
            default: "\(Self.name(path)):dir"
            }
        }.joined(separator: " ")
    }

    private mutating func rename(_ from: String, _ to: String) -> Outcome {
        guard let source = entries[from] else { return .error(parentError(from) ?? ENOENT) }
        if let error = parentError(to) { return .error(error) }
        if from == to { return .ok }
        if source == .dir && (to + "/").hasPrefix(from + "/") { return .error(EINVAL) }
        switch (source, entries[to]) {
        case (.file, .dir): return .error(EISDIR)
        case (.dir, .file): return .error(ENOTDIR)
        case (.dir, .dir): if !children(of: to).isEmpty { return .error(ENOTEMPTY) }
        case (_, nil): if caseTwin(to, source: from) { return .error(EEXIST) }
        default: break
        }
        let moved = entries.filter { $0.key == from || $0.key.hasPrefix(from + "/") }
        for key in moved.keys { entries[key] = nil }
        entries[to] = nil
        for (key, entry) in moved { entries[to + key.dropFirst(from.count)] = entry }
        return .ok
    }
}
