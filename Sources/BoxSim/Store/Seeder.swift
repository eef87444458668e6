import Foundation
import GRDB

/// Imports a local directory tree into a user's root folder. Idempotent: items whose name already exists
/// in the target folder are kept as they are (not duplicated, not re-imported).
struct Seeder {
    let store: Store
    let owner: UserRecord

    /// Returns how many files and folders were newly created.
    @discardableResult
    func importTree(at source: URL) throws -> Int {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source.path, isDirectory: &isDirectory), isDirectory.boolValue
        else { throw SeedError.notADirectory(source.path) }
        guard let root = owner.rootFolderID else { throw SeedError.noRootFolder }
        return try importChildren(of: source, into: root)
    }

    private func importChildren(of directory: URL, into folderID: Int64) throws -> Int {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        var created = 0
        for name in names {
            let path = directory.appendingPathComponent(name).path
            var info = stat()
            guard stat(path, &info) == 0 else { continue }
            let kind = info.st_mode & S_IFMT
            if kind == S_IFDIR {
                let (folderID, isNew) = try findOrCreateFolder(named: name, in: folderID)
                created += (isNew ? 1 : 0) + (try importChildren(of: URL(fileURLWithPath: path), into: folderID))
            } else if kind == S_IFREG {
                if try existingChild(named: name, in: folderID) != nil { continue }
                let blob = try store.blobs.importFile(atPath: path)
                try insertFile(named: name, in: folderID, sha1: blob.sha1, size: blob.size,
                               modified: Int64(info.st_mtim.tv_sec))
                created += 1
            }
        }
        return created
    }

    private func existingChild(named name: String, in folderID: Int64) throws -> ItemRecord? {
        try store.database.read { db in
            try ItemRecord.filter(sql: "parent_id = ? AND name_key = ? AND item_status = 'active'",
                                  arguments: [folderID, ItemRecord.nameKey(name)]).fetchOne(db)
        }
    }

    private func findOrCreateFolder(named name: String, in parentID: Int64) throws -> (Int64, Bool) {
        if let existing = try existingChild(named: name, in: parentID) {
            guard existing.isFolder else { throw SeedError.nameClash(name) }
            return (existing.id!, false)
        }
        let ownerID = owner.id!
        return try store.database.write { db in
            var folder = ItemRecord.newFolder(name: name, parentID: parentID, ownerID: ownerID, time: Timestamp.now())
            try folder.insert(db)
            return (folder.id!, true)
        }
    }

    private func insertFile(named name: String, in folderID: Int64, sha1: String, size: Int64, modified: Int64) throws {
        let ownerID = owner.id!
        try store.database.write { db in
            let now = Timestamp.now()
            var file = ItemRecord.newFile(name: name, parentID: folderID, ownerID: ownerID, sha1: sha1, size: size,
                                          time: now, contentCreatedAt: modified, contentModifiedAt: modified)
            try file.insert(db)
            var version = FileVersionRecord(id: nil, fileID: file.id!, sha1: sha1, size: size, createdAt: now,
                                            modifiedBy: ownerID)
            try version.insert(db)
            file.versionID = version.id
            try file.update(db)
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
