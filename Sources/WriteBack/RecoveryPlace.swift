import BoxAPI
import Foundation
import Glibc
import SystemCalls

/// Where the content of an upload Box can no longer take is kept: a folder of the mount's state in `cache_dir`
/// (`<account>/recovered/<mounted folder id>/`), each file at its path below the mount (`docs/new.txt`). A name
/// already taken there by other content gets ` (2)`, ` (3)`, … before its extension; the same content at the name
/// (kept before, by a run killed before it dropped the entry) is that file, not a second copy.
///
/// Every call here waits on the disk (`fsync`): make them off Swift's cooperative pool (`Syscall.offThePool`).
public struct RecoveryPlace: Sendable {
    public let directory: URL
    /// What a copy is written as before its rename to its name: never counted as a kept file.
    static let temporaryPrefix = ".recovering-"

    public init(directory: URL) {
        self.directory = directory
    }

    /// Copies `source` durably to `relativePath` below the folder: written to a temporary file, synced, linked
    /// to a free name (never over another file), and the folders synced. Answers the path kept.
    func keep(_ source: String, relativePath: String) throws -> String {
        let parts = Self.components(relativePath)
        let name = parts.last ?? "file"
        let folder = try makeFolders(parts.dropLast())
        let digest = try FileDigest.sha1(path: source)
        let temporary = folder + "/" + Self.temporaryPrefix + UUID().uuidString
        try copy(source, to: temporary)
        defer { try? Syscall.unlink(temporary) }
        for attempt in 1...10_000 {
            let candidate = folder + "/" + Self.name(name, attempt: attempt)
            if (try? FileDigest.sha1(path: candidate)) == digest { return candidate }
            if try Self.link(temporary, to: candidate) {
                try Self.syncFolder(folder)
                return candidate
            }
        }
        throw WriteBackError("no free name for \(relativePath) in \(folder)")
    }

    /// `link`: false when `destination` exists (it is never replaced).
    private static func link(_ source: String, to destination: String) throws -> Bool {
        if Glibc.link(source, destination) == 0 { return true }
        let code = errno
        if code == EEXIST { return false }
        if code == EINTR { return try link(source, to: destination) }
        throw SystemCallError(operation: "link", path: destination, errno: code)
    }

    /// The files kept, as paths relative to the folder, sorted (an absent folder keeps none).
    public func files() -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: directory.path) else { return [] }
        var found: [String] = []
        while let relative = walker.nextObject() as? String {
            let isFile = (walker.fileAttributes?[.type] as? FileAttributeType) == .typeRegular
            let name = (relative as NSString).lastPathComponent
            if isFile, !name.hasPrefix(Self.temporaryPrefix) { found.append(relative) }
        }
        return found.sorted()
    }

    /// `docs/new.txt` → [`docs`, `new.txt`]: no empty, `.` or `..` part, so nothing lands outside the folder.
    static func components(_ path: String) -> [String] {
        path.split(separator: "/").map(String.init).filter { $0 != "." && $0 != ".." }
    }

    /// `new.txt`, then `new (2).txt`, `new (3).txt`, …
    static func name(_ name: String, attempt: Int) -> String {
        guard attempt > 1 else { return name }
        let (stem, ext) = ConflictName.split(name)
        return "\(stem) (\(attempt))\(ext)"
    }

    /// Creates the folders down to `parts` (0700), syncing the parent of each one made; answers the last one.
    private func makeFolders(_ parts: ArraySlice<String>) throws -> String {
        var path = ""
        for part in directory.path.split(separator: "/").map(String.init) + parts {
            let parent = path.isEmpty ? "/" : path
            path += "/" + part
            if (try? Syscall.status(path)) != nil { continue }
            try Syscall.makeDirectory(path)
            try Self.syncFolder(parent)
        }
        return path
    }

    private func copy(_ source: String, to destination: String) throws {
        let input = try Syscall.open(source, O_RDONLY)
        defer { Syscall.close(input) }
        let output = try Syscall.open(destination, O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
        defer { Syscall.close(output) }
        var offset: Int64 = 0
        while true {
            let chunk = try Syscall.read(input, count: 1 << 20, at: offset, path: source)
            if chunk.isEmpty { break }
            try Syscall.writeAll(output, chunk, at: offset, path: destination)
            offset += Int64(chunk.count)
        }
        try Syscall.sync(output, path: destination)
    }

    private static func syncFolder(_ path: String) throws {
        let descriptor = try Syscall.open(path, O_RDONLY | O_DIRECTORY)
        defer { Syscall.close(descriptor) }
        try Syscall.sync(descriptor, path: path)
    }
}
