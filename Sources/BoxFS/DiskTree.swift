import BoxAPI
import Foundation
import GRDB
import Logging
import SystemCalls

/// The tree on disk: the folder listings the mount holds, and the event stream position they reflect, kept in
/// `cache_dir` (`<account>/tree-<folder id>.sqlite`, one per account and mounted folder) so the next mount starts
/// from them, also while Box is out of reach.
///
/// The memory tree stays the source of truth while mounted; this is its copy. `FileSystem+DiskTree` takes what
/// changed (`ListingCache.takeChanges`) under the state lock once a second and hands it here: every SQLite call
/// runs on `queue`, a serial queue of its own, never on a FUSE thread or Swift's cooperative pool, and each batch
/// is one transaction (WAL, `synchronous=NORMAL`: a kill leaves the last committed batch; a power loss may lose
/// the last batches, never the file's consistency). A database that cannot be opened is a cache: it is deleted
/// and made again.
///
/// Lock order: `lastPosition`, `writing` and `pacing` are `OwnLock`s, each taken alone (never with the state lock
/// or another of them held).
public final class DiskTree: Sendable {
    public let path: String
    let database: DatabaseQueue
    let logger: Logger
    /// Every read and write of `database`, in order.
    let queue = DispatchQueue(label: "boxfs.disk-tree")
    /// The stream position last written (nothing is written while neither it nor a listing changes).
    let lastPosition = OwnLock<String?>("the disk tree's last position", nil)
    /// Whether the once-a-second writes run.
    let writing = OwnLock<Bool>("the disk tree's writer switch", false)
    /// Which large listings wait to be written again (`DiskTreePacing`); read and changed on `queue` only.
    let pacing = OwnLock<DiskTreePacing>("the disk tree's pacing", DiskTreePacing())

    /// What a mount starts from: the listings and the position they reflect.
    public struct Snapshot: Sendable {
        public var position: String?
        public var listings: [(folderID: String, fetchedAt: Date, items: [BoxItem])] = []
        public var entryCount: Int { listings.reduce(0) { $0 + $1.items.count } }
    }

    /// One batch of changes: every listing first dropped (`droppedAll`), then each folder's listing written, or
    /// deleted when nil, then those of `diskOnly` that hold an item of `touchedItems` deleted, and the position.
    struct Changes: Sendable {
        var droppedAll = false
        var listings: [(folderID: String, fetchedAt: Date, items: [BoxItem]?)] = []
        var touchedItems: Set<String> = []
        var diskOnly: Set<String> = []
        var position: String?
    }

    /// What a mount starts from when it reads listings only as they are used: the position, and which folders'
    /// listings are kept (when Box listed each) with how many entries in all.
    public struct Index: Sendable {
        public var position: String?
        public var folders: [(folderID: String, fetchedAt: Date)] = []
        public var entryCount = 0
    }

    private init(path: String, database: DatabaseQueue, logger: Logger) {
        self.path = path
        self.database = database
        self.logger = logger
    }

    /// Opens (creating if needed) the database at `path`, on the tree's own queue; one that is damaged is replaced.
    public static func open(path: String, logger: Logger) async throws -> DiskTree {
        let queue = DispatchQueue(label: "boxfs.disk-tree.open")
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try openNow(path: path, logger: logger) })
            }
        }
    }

    private static func openNow(path: String, logger: Logger) throws -> DiskTree {
        do {
            return DiskTree(path: path, database: try makeDatabase(path: path), logger: logger)
        } catch {
            logger.warning("the tree on disk \(path) could not be opened (\(error)); starting it again empty")
            for suffix in ["", "-wal", "-shm"] { try? Syscall.unlink(path + suffix) }
            return DiskTree(path: path, database: try makeDatabase(path: path), logger: logger)
        }
    }

    private static func makeDatabase(path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        let database = try DatabaseQueue(path: path, configuration: configuration)
        try DiskTreeSchema.migrator().migrate(database)
        // A read of every table, so a damaged file fails here and not at the first write.
        _ = try database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM listing") }
        chmod(path, 0o600)
        return database
    }

    /// Everything kept, read on the tree's queue (listings whose items cannot be read are left out).
    public func load() async throws -> Snapshot {
        try await onQueue { [database] in
            try database.read { db in
                var snapshot = Snapshot()
                snapshot.position = try String.fetchOne(db, sql: "SELECT position FROM stream WHERE id = 1")
                let decoder = JSONDecoder()
                let rows = try Row.fetchCursor(db, sql: "SELECT folder_id, fetched_at, items FROM listing")
                while let row = try rows.next() {
                    let data: Data = row["items"]
                    guard let stored = try? decoder.decode([StoredItem].self, from: data) else { continue }
                    snapshot.listings.append(
                        (row["folder_id"], Date(timeIntervalSince1970: row["fetched_at"]), stored.compactMap(\.item)))
                }
                return snapshot
            }
        }
    }

    /// Which listings are kept, and the position, read on the tree's queue (no items: each listing is read when used,
    /// `readListing`).
    public func loadIndex() async throws -> Index {
        try await onQueue { [database] in
            try database.read { db in
                var index = Index()
                index.position = try String.fetchOne(db, sql: "SELECT position FROM stream WHERE id = 1")
                let rows = try Row.fetchCursor(db, sql: "SELECT folder_id, fetched_at FROM listing")
                while let row = try rows.next() {
                    index.folders.append((row["folder_id"], Date(timeIntervalSince1970: row["fetched_at"])))
                }
                index.entryCount = try Int.fetchOne(db, sql: "SELECT count(*) FROM listing_item") ?? 0
                return index
            }
        }
    }

    /// The listing of `folderID` as kept, or nil (none kept, or unreadable); on the tree's queue only.
    func readListing(folderID: String) -> (fetchedAt: Date, items: [BoxItem])? {
        dispatchPrecondition(condition: .onQueue(queue))
        do {
            return try database.read { db in
                guard let row = try Row.fetchOne(
                    db, sql: "SELECT fetched_at, items FROM listing WHERE folder_id = ?", arguments: [folderID])
                else { return nil }
                let data: Data = row["items"]
                guard let stored = try? JSONDecoder().decode([StoredItem].self, from: data) else { return nil }
                return (Date(timeIntervalSince1970: row["fetched_at"]), stored.compactMap(\.item))
            }
        } catch {
            logger.warning("the tree on disk could not be read (\(error)); listing \(folderID) from Box")
            return nil
        }
    }

    /// Forgets every listing (nothing kept can be trusted: a position the stream does not resume from).
    public func dropAll() async throws {
        try await onQueue { [database] in
            try database.write { db in try db.execute(sql: "DELETE FROM listing; DELETE FROM listing_item") }
        }
    }

    static func insertItemRows(_ db: Database, folderID: String, itemIDs: [String]) throws {
        let statement = try db.cachedStatement(sql: "INSERT INTO listing_item (item_id, folder_id) VALUES (?, ?)")
        for id in itemIDs { try statement.execute(arguments: [id, folderID]) }
    }

    /// Deletes the listings among `candidates` that hold an item of `itemIDs`; answers which.
    private static func deleteListings(holding itemIDs: Set<String>, among candidates: Set<String>, _ db: Database)
        throws -> Set<String>
    {
        var holders: Set<String> = []
        let ids = Array(itemIDs)
        for start in stride(from: 0, to: ids.count, by: 500) {
            let chunk = Array(ids[start..<min(start + 500, ids.count)])
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            let found = try String.fetchAll(
                db, sql: "SELECT DISTINCT folder_id FROM listing_item WHERE item_id IN (\(marks))",
                arguments: StatementArguments(chunk))
            holders.formUnion(found.filter(candidates.contains))
        }
        for folderID in holders { try deleteListing(folderID, db) }
        return holders
    }

    private static func deleteListing(_ folderID: String, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM listing WHERE folder_id = ?", arguments: [folderID])
        try db.execute(sql: "DELETE FROM listing_item WHERE folder_id = ?", arguments: [folderID])
    }

    /// Writes a batch in one transaction; on the tree's queue only.
    func write(_ changes: Changes) {
        dispatchPrecondition(condition: .onQueue(queue))
        do {
            let encoder = JSONEncoder()
            try database.write { db in
                if changes.droppedAll { try db.execute(sql: "DELETE FROM listing; DELETE FROM listing_item") }
                for change in changes.listings {
                    try Self.deleteListing(change.folderID, db)
                    if let items = change.items {
                        let data = try encoder.encode(items.map(StoredItem.init))
                        try db.execute(
                            sql: "INSERT INTO listing (folder_id, fetched_at, items) VALUES (?, ?, ?)",
                            arguments: [change.folderID, change.fetchedAt.timeIntervalSince1970, data])
                        try Self.insertItemRows(db, folderID: change.folderID, itemIDs: items.map(\.id))
                    }
                }
                if !changes.touchedItems.isEmpty {
                    let deleted = try Self.deleteListings(holding: changes.touchedItems, among: changes.diskOnly, db)
                    if !deleted.isEmpty { logger.debug("tree on disk: \(deleted.count) listings holding changed items deleted") }
                }
                if let position = changes.position {
                    try db.execute(
                        sql: "INSERT OR REPLACE INTO stream (id, position, saved_at) VALUES (1, ?, ?)",
                        arguments: [position, Date().timeIntervalSince1970])
                }
            }
            if let position = changes.position { lastPosition.withLock { $0 = position } }
        } catch {
            // The batch's notes are gone: later batches alone would leave its folders as they were under a newer
            // position. So everything kept goes; if even that fails, nothing more is written (the next mount finds the
            // position behind the stream's and drops what is left).
            logger.warning("the tree on disk could not be written (\(error)); its listings are dropped")
            do {
                try database.write { db in
                    try db.execute(sql: "DELETE FROM listing; DELETE FROM listing_item; DELETE FROM stream")
                }
                lastPosition.withLock { $0 = nil }
            } catch {
                writing.withLock { $0 = false }
            }
        }
    }

    /// Runs `body` on the tree's queue, the caller's task suspended meanwhile.
    func onQueue<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }
}
