import Dispatch
import Foundation
import GRDB
import Synchronization

/// Imports a local directory tree into a user's root folder. Idempotent: items whose name already exists
/// in the target folder are kept as they are (not duplicated, not re-imported); a local name that differs
/// only in case from one before it is treated the same way (two folders merge, a later file is skipped).
///
/// Fast enough for a million entries: the whole import is one writer session (`SeedWriter`: prepared
/// statements, a commit every 20,000 rows); the files of each folder are read by several threads at once
/// (`BlobStore.importFile`, sparse-aware; larger files are copied to blob files there), then the small contents of
/// each batch of 256 go to a pack in one write (`BlobPacks`), before that folder's rows are written, so ids come
/// out in the same order as a plain depth-first walk in name order.
struct Seeder: Sendable {
    let store: Store
    let owner: UserRecord

    /// Returns how many files and folders were newly created.
    @discardableResult
    func importTree(at source: URL) throws -> Int {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source.path, isDirectory: &isDirectory), isDirectory.boolValue
        else { throw SeedError.notADirectory(source.path) }
        guard let root = owner.rootFolderID else { throw SeedError.noRootFolder }
        let ownerID = owner.id!
        return try store.database.writeWithoutTransaction { db in
            let writer = try SeedWriter(db, ownerID: ownerID)
            do {
                let created = try importChildren(of: source.path, into: root, isNew: false, writer: writer)
                try writer.finish()
                return created
            } catch {
                writer.abandon()
                throw error
            }
        }
    }

    /// `importTree` on a thread of its own: it blocks on the disk and SQLite for as long as the tree takes,
    /// which must not be on Swift's cooperative pool.
    func importTreeOffThePool(at source: URL) async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try importTree(at: source) }) }.start()
        }
    }

    /// One entry of a local folder, in name order, with what to do about it.
    private enum Step {
        case folder(name: String, path: String)
        case file(name: String, path: String, modified: Int64)
    }

    private func importChildren(of directory: String, into folderID: Int64, isNew: Bool, writer: SeedWriter) throws -> Int {
        var taken: [String: (id: Int64, isFolder: Bool)] = isNew ? [:] : try writer.children(of: folderID)
        let steps = try plan(directory, taken: taken)
        let files = steps.compactMap { step -> String? in
            if case .file(_, let path, _) = step { return path } else { return nil }
        }
        let blobs = try importBlobs(files, writer: writer)
        var created = 0
        var fileIndex = 0
        let time = Timestamp.now()
        for step in steps {
            switch step {
            case .folder(let name, let path):
                let key = ItemRecord.nameKey(name)
                if let existing = taken[key] {
                    created += try importChildren(of: path, into: existing.id, isNew: false, writer: writer)
                } else {
                    let id = try writer.insertFolder(named: name, in: folderID, time: time)
                    taken[key] = (id, true)
                    created += 1 + (try importChildren(of: path, into: id, isNew: true, writer: writer))
                }
            case .file(let name, _, let modified):
                let blob = blobs[fileIndex]
                fileIndex += 1
                try writer.insertFile(named: name, in: folderID, sha1: blob.sha1, size: blob.size, modified: modified,
                                      time: time)
                created += 1
            }
        }
        return created
    }

    /// The folder's entries to import, in name order: files whose name is free, folders (new or to merge into
    /// the one of that name). A folder whose name a file holds is an error.
    private func plan(_ directory: String, taken: [String: (id: Int64, isFolder: Bool)]) throws -> [Step] {
        var names = taken.mapValues { $0.isFolder }
        var steps: [Step] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: directory).sorted() {
            let path = directory + "/" + name
            var info = stat()
            guard stat(path, &info) == 0 else { continue }
            let kind = info.st_mode & S_IFMT
            let key = ItemRecord.nameKey(name)
            if kind == S_IFDIR {
                if let isFolder = names[key], !isFolder { throw SeedError.nameClash(name) }
                names[key] = true
                steps.append(.folder(name: name, path: path))
            } else if kind == S_IFREG {
                if names[key] != nil { continue }
                names[key] = false
                steps.append(.file(name: name, path: path, modified: Int64(info.st_mtim.tv_sec)))
            }
        }
        return steps
    }

    /// Files read at once before their small contents are packed (bounds the memory they take: 16 MiB).
    static let importBatch = 256

    /// Copies the files into the blob store, several at once; their SHA-1s and sizes in the same order.
    private func importBlobs(_ paths: [String], writer: SeedWriter) throws -> [(sha1: String, size: Int64)] {
        var imported: [(sha1: String, size: Int64)] = []
        imported.reserveCapacity(paths.count)
        for start in stride(from: 0, to: paths.count, by: Self.importBatch) {
            let batch = try readBatch(Array(paths[start..<min(paths.count, start + Self.importBatch)]))
            try pack(batch, writer: writer)
            imported += batch.map { ($0.sha1, $0.size) }
        }
        return imported
    }

    private func readBatch(_ paths: [String]) throws -> [ImportedBlob] {
        let blobs = store.blobs
        guard paths.count > 1 else { return try paths.map { try blobs.importFile(atPath: $0) } }
        let results = Mutex([Result<ImportedBlob, any Error>?](repeating: nil, count: paths.count))
        DispatchQueue.concurrentPerform(iterations: paths.count) { index in
            let result = Result { try blobs.importFile(atPath: paths[index]) }
            results.withLock { $0[index] = result }
        }
        return try results.withLock { slots in try slots.map { try $0!.get() } }
    }

    /// Appends the batch's small contents that are not stored yet to a pack, in one write, and records them.
    private func pack(_ batch: [ImportedBlob], writer: SeedWriter) throws {
        var bytes: [UInt8] = []
        var placed: [(sha1: String, offset: Int)] = []
        var seen = Set<String>()
        for case .small(let sha1, let content) in batch where seen.insert(sha1).inserted {
            if try writer.isPacked(sha1) { continue }
            placed.append((sha1, bytes.count))
            bytes += content
        }
        guard !placed.isEmpty else { return }
        let start = try bytes.withUnsafeBytes { try store.blobs.packs.append($0) }
        for blob in placed {
            try writer.insertPackedBlob(blob.sha1, at: PackedBlob(pack: start.pack, offset: start.offset + Int64(blob.offset)))
        }
    }
}

enum SeedError: Error, CustomStringConvertible {
    case notADirectory(String)
    case noRootFolder
    case nameClash(String)

    var description: String {
        switch self {
        case .notADirectory(let path): "seed path is not a directory: \(path)"
        case .noRootFolder: "the admin user has no root folder"
        case .nameClash(let name): "seed folder \(name) clashes with an existing file of that name"
        }
    }
}
